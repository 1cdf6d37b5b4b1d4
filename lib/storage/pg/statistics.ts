/**
 * The planner's statistics of the history index, refreshed right after the writes that change
 * its shape at once (a rebuild, a big snapshot or delta). PostgreSQL estimates how many versions a
 * search's regular expressions match from the sampled contents of the last ANALYZE; stale samples
 * (taken when the table was small, or held other words) make it prefer a sequential scan over
 * the trigram GIN index even for a rare word — 96-106 ms instead of 4-9 ms at 30k versions.
 * Autovacuum catches up with the steady trickle of small deltas; these writes do not wait for it.
 *
 * The same writes leave the trigram index's pending list full: GIN keeps new entries in an
 * unsorted list (fastupdate, up to gin_pending_list_limit = 4 MB) that EVERY search reads whole
 * until a vacuum or the list's limit moves them into the index proper. After the bench history's
 * rebuild that was ~400 pages read per search, 7-18 ms for a rare word that the index proper
 * answers in 0.08 ms (bench/scale-out/search-probe.ts), so the refresh empties it too.
 */
import type { Queryable } from './sql';

/** Versions one entry may add before its ingest refreshes the statistics itself. */
export const ANALYZE_AFTER_VERSIONS = 2000;

/** The search's trigram index (db/pg/schema.ts). */
export const TRIGRAM_INDEX = 'record_versions_content_trgm_idx';

/** ANALYZE of the index tables a search reads, and the trigram index's pending list merged (after a commit; never inside the append's transaction). */
export async function refreshIndexStatistics(db: Queryable): Promise<void> {
  await db.query('ANALYZE record_versions, records, raw_file_versions');
  await mergeSearchPendingList(db);
}

/**
 * The trigram index's pending list moved into the index proper. Besides the refreshes above, every
 * serving process runs it in its maintenance sweeps (scale-out.ts): a steady trickle of small deltas
 * never triggers a refresh, and the list would otherwise grow up to its 4 MB limit between vacuums.
 */
export async function mergeSearchPendingList(db: Queryable): Promise<void> {
  await db.query(`SELECT gin_clean_pending_list('${TRIGRAM_INDEX}'::regclass)`);
}
