/** Reads of the indexed current state that the indexer compares new entries against. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Drizzle } from '@/db/client';
import { records, type RecordRow } from '@/db/schema';
import { statements } from './statements';

/** Current rows (live or deleted) of the given record ids. */
export function recordRowsById(db: Drizzle, agentId: string, ids: readonly string[]): Map<string, RecordRow> {
  const { recordById } = statements(db);
  const out = new Map<string, RecordRow>();
  for (const id of ids) {
    const row = recordById.get({ agent_id: agentId, record_id: id });
    if (row) out.set(id, row);
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
  const { rawHead } = statements(db);
  const out = new Map<string, string | null>();
  for (const path of paths) {
    const row = rawHead.get({ agent_id: agentId, path });
    if (row) out.set(path, row.deleted ? null : row.sha256);
  }
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
