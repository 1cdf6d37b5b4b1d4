/**
 * The embedded ingest as the composition root wires it: lib/ledger's crash-safe append (it knows
 * no index) handed the history indexer, so the entry is appended and indexed in ONE SQLite
 * transaction — or, with `deferIndexFrom` (a local sync of a large change), appended and marked
 * pending, its fold left to a catch-up (lib/history/pending-index.ts). Everything that ingests into a data directory calls these (the embedded storage,
 * the ingest thread, `lineage sync` to a local directory, recovery, the test generators).
 */
import { checkedTreeHolds } from '@/lib/history/checked-tree';
import { liveRawFiles } from '@/lib/history/current-state';
import { indexEntry } from '@/lib/history/indexer';
import { catchUpIndex, indexPending, markIndexPending } from '@/lib/history/pending-index';
import * as ledgerIngest from '@/lib/ledger/ingest';
import type { EntryIndexer, IngestResult } from '@/lib/ledger/ingest';

export type { IngestResult };

/** The history index, as the ledger's ingest sees it. */
export const historyIndexer: EntryIndexer = {
  index: (db, entry) => indexEntry(db, entry),
  livePaths: (db, agentId, seq) => liveRawFiles(db, agentId, seq).map((f) => f.path),
  checkedTreeHolds: (db, agentId, seq, paths) => checkedTreeHolds(db, agentId, seq, paths),
  pending: {
    has: (ledger, agentId) => indexPending(ledger.db.sqlite, agentId),
    catchUp: (ledger, agentId) => catchUpIndex(ledger, agentId),
    mark: (ledger, entry) => markIndexPending(ledger.db.sqlite, entry),
  },
};

type Params<F> = F extends (params: infer P) => unknown ? Omit<P, 'indexer'> : never;

/** Stores a full `.alf` snapshot, indexed in the same transaction (or later: `deferIndexFrom`). */
export function ingestSnapshot(params: Params<typeof ledgerIngest.ingestSnapshot>): Promise<IngestResult> {
  return ledgerIngest.ingestSnapshot({ ...params, indexer: historyIndexer });
}

/** Appends a `.alf-delta` at latest + 1, indexed in the same transaction (or later: `deferIndexFrom`). */
export function ingestDelta(params: Params<typeof ledgerIngest.ingestDelta>): Promise<IngestResult> {
  return ledgerIngest.ingestDelta({ ...params, indexer: historyIndexer });
}
