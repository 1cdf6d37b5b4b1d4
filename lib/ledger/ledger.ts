import path from 'node:path';
import { openDatabase, type LineageDb } from '@/db/client';
import { FsBlobStore, type BlobStore } from './blob-store';

/** The ledger of one data directory: its database and its blob store. */
export interface Ledger {
  db: LineageDb;
  blobs: BlobStore;
}

/**
 * Opens the ledger in `dataDir` (database `<data>/lineage.db`, blobs under `<data>/blobs/`).
 * `packing: 'deferred'`: blobs are stored whole at ingest and packed later by `packStored`
 * (the local sync target packs each group of an agent once the next one has begun).
 */
export function openLedger(dataDir: string, options: { packing?: 'deferred' } = {}): Ledger {
  const db = openDatabase(dataDir);
  return { db, blobs: new FsBlobStore(path.join(db.dataDir, 'blobs'), options.packing ? { pack: options.packing } : {}) };
}
