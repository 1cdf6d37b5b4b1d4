import { systemClock, type Clock } from '@/lib/core/clock';
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { resolveLimits, type ServerLimits } from './limits';
import { UrlSigner } from './signing';
import { UploadStore } from './upload-store';

/** Everything the protocol handlers share for one data directory. */
export interface ServiceContext {
  dataDir: string;
  ledger: Ledger;
  signer: UrlSigner;
  uploads: UploadStore;
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

/** Opens the ledger and the signing secret of a data directory. */
export function createServiceContext(options: {
  dataDir: string;
  limits?: Partial<ServerLimits>;
  clock?: Clock;
  publicUrl?: string;
}): ServiceContext {
  const ledger = openLedger(options.dataDir);
  const dataDir = ledger.db.dataDir;
  return {
    dataDir,
    ledger,
    signer: UrlSigner.forDataDir(dataDir),
    uploads: new UploadStore(dataDir),
    limits: resolveLimits(options.limits),
    clock: options.clock ?? systemClock,
    publicUrl: options.publicUrl ?? 'http://127.0.0.1',
  };
}
