import { systemClock, type Clock } from '@/lib/core/clock';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { embeddedLedger, openEmbeddedStorage } from '@/lib/storage/embedded';
import type { LineageStorage } from '@/lib/storage/types';
import { resolveLimits, type ServerLimits } from './limits';
import { UrlSigner } from './signing';

/** Everything the protocol handlers share: the storage (embedded or scale-out) and this process's settings. */
export interface ServiceContext {
  /** The data directory (embedded) or the directory the signing secret is kept in. */
  dataDir: string;
  storage: LineageStorage;
  signer: UrlSigner;
  limits: ServerLimits;
  clock: Clock;
  /** Origin of the URLs this server hands out: `LINEAGE_PUBLIC_URL`, else the bind address (set once listening). */
  publicUrl: string;
}

/** Per-request context handed to a route handler. */
export interface RequestContext {
  service: ServiceContext;
  url: URL;
  params: Record<string, string>;
  /** The caller's tenant (API key id); null on signed-URL routes, which carry no key. */
  tenantId: string | null;
}

/**
 * The service over `storage` (the composition root opened it: lib/storage/open.ts), or else over
 * the embedded storage of `dataDir`. URLs and sessions are signed with `secret` when given
 * (`LINEAGE_SECRET`: every process of a scale-out service shares it, none keeps it on disk), else
 * with the data directory's `server-secret` file.
 */
export function createServiceContext(options: {
  dataDir: string;
  storage?: LineageStorage;
  limits?: Partial<ServerLimits>;
  clock?: Clock;
  publicUrl?: string;
  secret?: Buffer | null;
}): ServiceContext {
  const storage = options.storage ?? openEmbeddedStorage(options.dataDir);
  const dataDir = storage.backend === 'embedded' ? embeddedLedger(storage).db.dataDir : resolveDataDir(options.dataDir);
  return {
    dataDir,
    storage,
    signer: options.secret ? new UrlSigner(options.secret) : UrlSigner.forDataDir(dataDir),
    limits: resolveLimits(options.limits),
    clock: options.clock ?? systemClock,
    publicUrl: options.publicUrl ?? 'http://127.0.0.1',
  };
}
