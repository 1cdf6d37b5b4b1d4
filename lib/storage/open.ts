/**
 * The composition root of the storage seam: the one place a process gets its `LineageStorage`.
 * `storageFor(config)` opens the storage a config names once per process and hands the same one
 * to every caller after (the dashboard's route handlers and pages, the CLI). The embedded config is
 * a data directory; any other backend comes with its opener (lib/storage/config.ts reads the
 * settings and opens PostgreSQL + S3), so this file knows no setting of its own.
 *
 * `lineage serve` installs the storage it serves (`useProcessStorage`), so the dashboard in the same
 * process reads through the very handle the protocol writes through.
 */
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { embeddedLedger, openEmbeddedStorage, type EmbeddedStorage } from './embedded';
import type { LineageStorage } from './types';

export type StorageTarget =
  | { backend: 'embedded'; dataDir: string }
  /** `key` names the target (e.g. the database URL + bucket) for the per-process cache. */
  | { backend: 'scale-out'; key: string; open(): Promise<LineageStorage> };

const cached = globalThis as unknown as {
  lineageStorages?: Map<string, Promise<LineageStorage>>; lineageEmbedded?: Map<string, EmbeddedStorage>; lineageStorage?: LineageStorage;
};

function keyOf(target: StorageTarget): string {
  return target.backend === 'embedded' ? `embedded:${resolveDataDir(target.dataDir)}` : `scale-out:${target.key}`;
}

/** A closed embedded storage (its database closed by `close`) is opened again on the next ask. */
function stillOpen(storage: LineageStorage): boolean {
  return storage.backend !== 'embedded' || embeddedLedger(storage).db.sqlite.open;
}

/** The process's storage for `target`, opened on first use. */
export async function storageFor(target: StorageTarget): Promise<LineageStorage> {
  if (target.backend === 'embedded') return embeddedStorageFor(target.dataDir);
  const storages = (cached.lineageStorages ??= new Map());
  const key = keyOf(target);
  const existing = storages.get(key);
  if (existing) {
    const storage = await existing.catch(() => null);
    if (storage && stillOpen(storage)) return storage;
  }
  const opening = target.open();
  storages.set(key, opening);
  return opening;
}

/** The process's embedded storage of a data directory (synchronous: opening SQLite is). */
export function embeddedStorageFor(dataDir: string): EmbeddedStorage {
  const embedded = (cached.lineageEmbedded ??= new Map());
  const key = keyOf({ backend: 'embedded', dataDir });
  const existing = embedded.get(key);
  if (existing && stillOpen(existing)) return existing;
  const storage = openEmbeddedStorage(dataDir);
  embedded.set(key, storage);
  return storage;
}

/** The storage `lineage serve` serves: route handlers and pages in its process use it (survives Next's dev reloads). */
export function useProcessStorage(storage: LineageStorage | undefined): void {
  cached.lineageStorage = storage;
}

/**
 * The dashboard's storage: the one the serving process installed, else the embedded data directory
 * of `LINEAGE_DATA` (`next dev`, route handlers called by tests).
 */
export async function dashboardStorage(): Promise<LineageStorage> {
  const installed = cached.lineageStorage;
  if (installed && stillOpen(installed)) return installed;
  return storageFor({ backend: 'embedded', dataDir: resolveDataDir() });
}
