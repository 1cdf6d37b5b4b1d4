/**
 * A sequence's raw file changes a page at a time (lib/history/queries/sequence-raw.ts) on
 * PostgreSQL, with the same rows, order and cursors: (entry_kind, path) compared under "C", as
 * SQLite compares text; each page's op counts on the C-collated (agent_id, seq, entry_kind,
 * origin_file) index.
 */
import {
  decodeRawCursor, rawPageOf, sequenceRawChanges, type SequenceFileCount, type SequenceRawPage, type SequenceRawRow,
} from '@/lib/history/queries/sequence-raw';
import type { SequenceOp } from '@/lib/history/queries/sequence-ops';
import { MOVED_FROM_FILE } from './changes';
import { first, Params, rows, type Queryable } from './sql';

/** The query of one page of raw files (`limit + 1` rows) with each file's own op count (exported for its plan test). */
export function rawPageQuery(p: { agentId: string; seq: number; limit: number; cursor?: string }): { text: string; params: Params } {
  const q = new Params();
  const a = q.add(p.agentId);
  const n = q.add(p.seq);
  let after = '';
  if (p.cursor !== undefined) {
    const [kind, path] = decodeRawCursor(p.cursor, p.agentId, p.seq);
    after = `AND (entry_kind COLLATE "C", path COLLATE "C") > (${q.add(kind)}, ${q.add(path)})`;
  }
  // Equalities under "C" too, so the count can use the C-collated index.
  const text = `
    SELECT f.path, f.deleted, f.size, f.entry_kind, (
      SELECT p.deleted FROM raw_file_versions p
      WHERE p.agent_id = f.agent_id AND p.path = f.path AND (p.seq < f.seq OR (p.seq = f.seq AND p.entry_kind < f.entry_kind))
      ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS prev_deleted, (
      SELECT count(*)::int FROM record_versions v
      WHERE v.agent_id = f.agent_id AND v.seq = f.seq AND v.entry_kind COLLATE "C" = f.entry_kind AND v.origin_file COLLATE "C" = f.path) AS own_ops
    FROM (SELECT agent_id, path, seq, entry_kind, deleted, size FROM raw_file_versions
      WHERE agent_id = ${a} AND seq = ${n}::bigint ${after} ORDER BY entry_kind COLLATE "C", path COLLATE "C" LIMIT ${q.add(Math.min(p.limit + 1, Number.MAX_SAFE_INTEGER))}) f
    ORDER BY f.entry_kind COLLATE "C", f.path COLLATE "C"`;
  return { text, params: q };
}

/** One page of the sequence's raw files after `cursor` (`limit` undefined: all), linked to `ops`. */
export async function sequenceRawPage(db: Queryable, p: { agentId: string; seq: number; ops: SequenceOp[]; opsLimit?: number; limit?: number; cursor?: string }):
  Promise<SequenceRawPage> {
  const limit = p.limit ?? Number.MAX_SAFE_INTEGER - 1;
  const { text, params } = rawPageQuery({ agentId: p.agentId, seq: p.seq, limit, cursor: p.cursor });
  const found = await rows<SequenceRawRow>(db, text, params);
  const { page, next_cursor } = rawPageOf(found, limit, p.agentId, p.seq);
  const movesFrom = page.length === 0 ? [] : await rows<SequenceFileCount>(db, `
    SELECT from_file AS path, entry_kind, count(*)::int AS count FROM (
      SELECT v.entry_kind, ${MOVED_FROM_FILE} AS from_file FROM record_versions v
      WHERE v.agent_id = $1 AND v.seq = $2::bigint AND v.op = 'move') moves
    GROUP BY entry_kind, from_file`, [p.agentId, p.seq]);
  return { items: sequenceRawChanges(page, movesFrom, p.ops, p.opsLimit), next_cursor };
}

/** How many raw files the sequence changed. */
export async function sequenceRawCount(db: Queryable, agentId: string, seq: number): Promise<number> {
  return (await first<{ n: number }>(db, 'SELECT count(*)::int AS n FROM raw_file_versions WHERE agent_id = $1 AND seq = $2::bigint', [agentId, seq]))!.n;
}
