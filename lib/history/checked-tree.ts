/**
 * Whether a delta's tree check can be answered without reading the base's whole tree
 * (lib/ledger/ingest-checks.ts `checkDeltaServable`): when every path the delta changes is live at
 * the base, the tree it leaves is a subset of the base's, and a subset of a tree without a
 * conflict has none. The base's tree is known to have none when every path in it came through the
 * ingest's own checks: a raw file is added only by a snapshot or a delta whose whole resulting tree
 * was checked, but a file reconstructed from records (record-files-index.ts) is added by the index
 * after the checks, unchecked — one such row up to the base, and the whole tree is read as before.
 */
import type { Statement } from 'better-sqlite3';
import type { Drizzle } from '@/db/client';

interface Queries {
  head: Statement<[string, string, number], { deleted: number }>;
  reconstructed: Statement<[string, number], number>;
}

const cache = new WeakMap<Drizzle, Queries>();

function queries(db: Drizzle): Queries {
  let found = cache.get(db);
  if (!found) {
    const sqlite = db.$client;
    found = {
      // The version liveRawFiles reads for a path (current-state.ts): one seek on the primary key.
      head: sqlite.prepare<[string, string, number], { deleted: number }>('SELECT deleted FROM raw_file_versions WHERE agent_id = ? AND path = ? AND seq <= ? ORDER BY seq DESC, entry_kind DESC LIMIT 1'),
      reconstructed: sqlite.prepare<[string, number], number>('SELECT 1 FROM raw_file_versions WHERE agent_id = ? AND seq <= ? AND reconstructed = 1 LIMIT 1').pluck(),
    };
    cache.set(db, found);
  }
  return found;
}

/** True when the live tree at `atSeq` came whole through the ingest checks and holds every one of `paths`. */
export function checkedTreeHolds(db: Drizzle, agentId: string, atSeq: number, paths: readonly string[]): boolean {
  const q = queries(db);
  if (q.reconstructed.get(agentId, atSeq) !== undefined) return false;
  return paths.every((path) => q.head.get(agentId, path, atSeq)?.deleted === 0);
}
