/** Reads of the indexed current state that the indexer compares new entries against. */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Drizzle } from '@/db/client';
import { records, type RecordRow } from '@/db/schema';

const CHUNK = 500;

/** Current rows (live or deleted) of the given record ids. */
export function recordRowsById(db: Drizzle, agentId: string, ids: readonly string[]): Map<string, RecordRow> {
  const out = new Map<string, RecordRow>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = db.select().from(records)
      .where(and(eq(records.agent_id, agentId), inArray(records.record_id, ids.slice(i, i + CHUNK)))).all();
    for (const row of rows) out.set(row.record_id, row);
  }
  return out;
}

/** Live records of an agent, in birth order then id (a deterministic "old order"). */
export function liveRecordRows(db: Drizzle, agentId: string): RecordRow[] {
  return db.select().from(records).where(and(eq(records.agent_id, agentId), isNull(records.deleted_seq)))
    .orderBy(asc(records.first_seq), asc(records.record_id)).all();
}

/** Latest version per path for the given paths: sha, null when deleted, absent when never seen. */
export function rawHeadsFor(db: Drizzle, agentId: string, paths: readonly string[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  if (paths.length === 0) return out;
  const rows = db.all<{ path: string; sha256: string | null; deleted: number }>(sql`
    SELECT p.value AS path, v.sha256 AS sha256, v.deleted AS deleted
    FROM json_each(${JSON.stringify(paths)}) p
    JOIN raw_file_versions v ON v.rowid = (
      SELECT w.rowid FROM raw_file_versions w WHERE w.agent_id = ${agentId} AND w.path = p.value
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)`);
  for (const row of rows) out.set(row.path, row.deleted ? null : row.sha256);
  return out;
}

/**
 * Every live path with its sha, at sequence `atSeq` (inclusive; Infinity = head). One query:
 * a loose index scan over distinct paths, then one index seek per path, so the cost grows with the
 * number of paths, not with the length of the history.
 */
export function liveRawFiles(db: Drizzle, agentId: string, atSeq: number): { path: string; sha256: string; size: number; seq: number }[] {
  const at = Number.isFinite(atSeq) ? atSeq : Number.MAX_SAFE_INTEGER;
  return db.all<{ path: string; sha256: string; size: number; seq: number }>(sql`
    WITH RECURSIVE paths(path) AS (
      SELECT (SELECT min(path) FROM raw_file_versions WHERE agent_id = ${agentId})
      UNION ALL
      SELECT (SELECT min(path) FROM raw_file_versions WHERE agent_id = ${agentId} AND path > paths.path)
      FROM paths WHERE paths.path IS NOT NULL
    )
    SELECT v.path AS path, v.sha256 AS sha256, v.size AS size, v.seq AS seq
    FROM paths
    JOIN raw_file_versions v ON v.rowid = (
      SELECT w.rowid FROM raw_file_versions w
      WHERE w.agent_id = ${agentId} AND w.path = paths.path AND w.seq <= ${at}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE paths.path IS NOT NULL AND v.deleted = 0
    ORDER BY v.path`);
}
