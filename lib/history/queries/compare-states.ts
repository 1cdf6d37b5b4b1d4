/**
 * The memories' rows of a comparison on SQLite (compare.ts): the moves in (from, to], and per record
 * touched in it its version live at each end. What costs is reading version rows (~900 bytes each,
 * one page read apiece), so each is read once: the moves and the records moved away come from the
 * partial `(agent_id, moved_from)` index (a handful of rows, not a second walk of the range), and the
 * meta (everything but the text) is built only for the records whose answer can hinge on it. At
 * #200 → #1999 of the ui-scale big agent (6,294 records, no moves) this cut the rows' CPU by about
 * a third (bench/ui-scale/verb-cpu.ts; figures in the commit).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { MemoryStateRow, MoveEdge } from './compare-chains';
import { allRows } from './prepared';

/**
 * The moves in (from, to], in (seq, entry_kind, record_id) order. A move is the only row with
 * `moved_from` set, so the partial index finds them without reading the range's other rows.
 */
export function moveEdges(db: LineageDb['db'], agentId: string, from: number, to: number): MoveEdge[] {
  return allRows<MoveEdge>(db, sql`
    SELECT moved_from AS source, record_id AS target, seq, entry_kind FROM record_versions INDEXED BY record_versions_moved_from_idx
    WHERE agent_id = ${agentId} AND moved_from IS NOT NULL AND +seq > ${from} AND +seq <= ${to} AND op = 'move'
    ORDER BY seq, entry_kind, record_id`);
}

/**
 * Per record with a version in (from, to] or moved away in it: its version live at `from` and at
 * `to` (null when not live then: never born, deleted, or moved away to another record), in record id
 * order (linkMemories walks them in the order given; PostgreSQL reads them in the same). `edges` are
 * the moves in the range (moveEdges): linkMemories compares a chain's first and last records' meta,
 * so theirs is read whatever their texts; any other record's meta matters only when its two texts agree.
 */
export function memoryStates(db: LineageDb['db'], p: { agentId: string; from: number; to: number; edges: readonly MoveEdge[] }): MemoryStateRow[] {
  const { agentId, from, to } = p;
  const chained = JSON.stringify([...new Set(p.edges.flatMap((e) => [e.source, e.target]))]);
  const side = (at: number) => sql`(SELECT w.id FROM record_versions w WHERE w.agent_id = ${agentId}
      AND w.record_id = ids.record_id AND w.seq <= ${at} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)`;
  // A version is live unless it is a delete or a move away (to another record) follows it by `at`.
  const live = (v: 'f' | 't', at: number) => {
    const a = sql.raw(v);
    return sql`CASE WHEN ${a}.id IS NULL OR ${a}.op = 'delete' THEN NULL
      WHEN EXISTS (SELECT 1 FROM record_versions m WHERE m.agent_id = ${a}.agent_id AND m.moved_from = ${a}.record_id
        AND +m.seq <= ${at} AND (+m.seq > ${a}.seq OR (+m.seq = ${a}.seq AND m.entry_kind > ${a}.entry_kind))) THEN NULL
      ELSE ${a}.id END`;
  };
  // Everything but the text, to tell an update of its file, heading, type or tags from no change.
  const meta = (v: 'f' | 't') => sql`CASE WHEN f.content_sha256 IS t.content_sha256 OR ends.record_id IN (SELECT value FROM json_each(${chained}))
    THEN ${sql.raw(`json_array(${v}.origin_file, ${v}.heading, ${v}.memory_type, ${v}.namespace, ${v}.status, ${v}.tags)`)} END`;
  return allRows<MemoryStateRow>(db, sql`
    WITH ids(record_id) AS (
      SELECT record_id FROM record_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to}
      UNION SELECT moved_from FROM record_versions INDEXED BY record_versions_moved_from_idx
        WHERE agent_id = ${agentId} AND moved_from IS NOT NULL AND +seq > ${from} AND +seq <= ${to}
    ), ends AS (SELECT ids.record_id, ${side(from)} AS vf, ${side(to)} AS vt FROM ids)
    SELECT ends.record_id, ${live('f', from)} AS from_id, ${live('t', to)} AS to_id,
      f.content_sha256 AS from_sha, t.content_sha256 AS to_sha, ${meta('f')} AS from_meta, ${meta('t')} AS to_meta,
      f.origin_file AS from_file, f.heading AS from_heading, t.origin_file AS to_file, t.heading AS to_heading
    FROM ends LEFT JOIN record_versions f ON f.id = ends.vf LEFT JOIN record_versions t ON t.id = ends.vt ORDER BY ends.record_id`);
}
