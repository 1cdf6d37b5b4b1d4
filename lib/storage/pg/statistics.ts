/**
 * The planner's statistics of the history index, refreshed right after the writes that change
 * its shape at once (a rebuild, a big snapshot or delta). PostgreSQL estimates how many versions a
 * search's regular expressions match from the sampled contents of the last ANALYZE; stale samples
 * (taken when the table was small, or held other words) make it prefer a sequential scan over
 * the trigram GIN index even for a rare word — 96-106 ms instead of 4-9 ms at 30k versions.
 * Autovacuum catches up with the steady trickle of small deltas; these writes do not wait for it.
 */
import type { Queryable } from './sql';

/** Versions one entry may add before its ingest refreshes the statistics itself. */
export const ANALYZE_AFTER_VERSIONS = 2000;

/** ANALYZE of the index tables a search reads (after a commit; never inside the append's transaction). */
export async function refreshIndexStatistics(db: Queryable): Promise<void> {
  await db.query('ANALYZE record_versions, records, raw_file_versions');
}
