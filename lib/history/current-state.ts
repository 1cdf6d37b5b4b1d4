/** Reads of the indexed current state that the indexer compares new entries against. */
import { sql } from 'drizzle-orm';
import type { Drizzle } from '@/db/client';
import type { CurrentRecord } from './index-rows';
import { LATEST_VERSION_JOIN, statements } from './statements';

/** Current state (live or deleted) of the given record ids. */
export function recordRowsById(db: Drizzle, agentId: string, ids: readonly string[]): Map<string, CurrentRecord> {
  const { recordById } = statements(db);
  const out = new Map<string, CurrentRecord>();
  for (const id of ids) {
    const row = recordById.get({ agent_id: agentId, record_id: id });
    if (row) out.set(id, row);
  }
  return out;
}

/** Live records of an agent, in birth order then id (a deterministic "old order"). */
export function liveRecordRows(db: Drizzle, agentId: string): CurrentRecord[] {
  return db.all<CurrentRecord>(sql`
    SELECT r.*, v.record_json FROM records r ${sql.raw(LATEST_VERSION_JOIN)}
    WHERE r.agent_id = ${agentId} AND r.deleted_seq IS NULL
    ORDER BY r.first_seq, r.record_id`);
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
