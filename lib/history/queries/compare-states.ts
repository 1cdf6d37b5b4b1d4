/**
 * The memories' rows of a comparison on SQLite (compare.ts): the moves in (from, to], and per record
 * touched in it its version live at each end. What costs is reading version rows (~900 bytes each,
 * one page read apiece, scattered over the history for the earlier end): at #200 → #1999 of the
 * ui-scale big agent (6,294 records, no moves) a read of both ends' rows per record was ~25 ms of
 * SQLite and ~13 ms of conversion. So a record no move links is read from the range itself (its
 * version at `to`) and one seek of a narrow index (its version at `from`), and only the handful
 * whose answer hinges on more are read by id afterwards (plainStates); the records a move links are
 * few and read whole (chainedStates). The moves come from the partial `(agent_id, moved_from)` index.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { MemoryStateRow, MoveEdge } from './compare-chains';
import { allRows, rawRows } from './prepared';

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
 * the moves in the range (moveEdges). The records a move links are read whole (chainedStates); every
 * other one — nearly all — by plainStates, which reads only what linkMemories looks at for it.
 */
export function memoryStates(db: LineageDb['db'], p: { agentId: string; from: number; to: number; edges: readonly MoveEdge[] }): MemoryStateRow[] {
  const chained = [...new Set(p.edges.flatMap((e) => [e.source, e.target]))];
  const plain = plainStates(db, { ...p, chained });
  if (chained.length === 0) return plain;
  const linked = chainedStates(db, { ...p, chained });
  return [...plain, ...linked].sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : 0));
}

/** A version is live at `at` unless it is a delete or a move away (to another record) follows it by then. */
const notMovedAway = (v: string, at: number) => sql`NOT EXISTS (SELECT 1 FROM record_versions m WHERE m.agent_id = ${sql.raw(v)}.agent_id
  AND m.moved_from = ${sql.raw(v)}.record_id AND +m.seq <= ${at}
  AND (+m.seq > ${sql.raw(v)}.seq OR (+m.seq = ${sql.raw(v)}.seq AND m.entry_kind > ${sql.raw(v)}.entry_kind)))`;

/** A plain record's row as read (see plainStates): its newest version in the range, and its version at `from` packed. */
type PlainRow = [recordId: string, toId: number | null, toVid: number, toSha: string, toFile: string | null, toHeading: string | null, fromSide: string | null];

/**
 * The records no move in (from, to] links, each read from two places instead of four. Its version
 * at `to` is its newest one in the range (one pass over the range, in insertion order, grouped by
 * record). Its version at `from` is one seek of record_versions_state_idx, which holds the three
 * things needed of it — row id, tombstone or not, content digest — packed by SQL into one value
 * (`<id> <live 0|1> <sha256>`): a scalar subquery gives one column, and reading the row instead
 * costs a scattered page read per record. Of the earlier version, linkMemories reads the file and
 * heading only of a memory deleted by `to` (its place in the list), and everything but the text only
 * when the two texts agree: those few are read afterwards by id. Elsewhere from_file/from_heading
 * are left null, and from_meta/to_meta are null when the texts differ, as the full read gives them.
 */
function plainStates(db: LineageDb['db'], p: { agentId: string; from: number; to: number; chained: string[] }): MemoryStateRow[] {
  const { agentId, from, to } = p;
  // `max()` makes SQLite take the other columns from the newest row of each record: the greatest
  // (seq, entry_kind), 'snapshot' sorting after 'delta' (ENTRY_KINDS) as the reads elsewhere order them.
  const rows = rawRows<PlainRow>(db, sql`
    WITH r AS (
      SELECT record_id, max(seq * 2 + (entry_kind = 'snapshot')) AS newest, id, agent_id, seq, entry_kind, op, content_sha256, origin_file, heading
      FROM record_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to}
        AND record_id NOT IN (SELECT value FROM json_each(${JSON.stringify(p.chained)}))
      GROUP BY record_id)
    SELECT r.record_id, CASE WHEN r.op <> 'delete' AND ${notMovedAway('r', to)} THEN r.id END, r.id,
      r.content_sha256, r.origin_file, r.heading,
      (SELECT w.id || ' ' || (w.op <> 'delete' AND ${notMovedAway('w', from)}) || ' ' || w.content_sha256
        FROM record_versions w INDEXED BY record_versions_state_idx
        WHERE w.agent_id = ${agentId} AND w.record_id = r.record_id AND w.seq <= ${from}
        ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    FROM r ORDER BY r.record_id`);
  const out: MemoryStateRow[] = [];
  // The plain records whose earlier row is read after all: [state, earlier version id, version id at `to`].
  const more: [MemoryStateRow, number, number][] = [];
  for (const [recordId, toId, toVid, toSha, toFile, toHeading, side] of rows) {
    // `<id> <0|1> <64 hex digits>`: the digest is the last 64 characters, the flag the one before its space.
    const fromSha = side === null ? null : side.slice(-64);
    const fromVid = side === null ? null : Number(side.slice(0, side.length - 67));
    const fromId = side !== null && side.charCodeAt(side.length - 66) === 49 ? fromVid : null;
    const state: MemoryStateRow = {
      record_id: recordId, from_id: fromId, to_id: toId, from_sha: fromSha, to_sha: toSha,
      from_meta: null, to_meta: null, from_file: null, from_heading: null, to_file: toFile, to_heading: toHeading,
    };
    out.push(state);
    if (fromVid !== null && (fromSha === toSha || (fromId !== null && toId === null))) more.push([state, fromVid, toVid]);
  }
  if (more.length > 0) fillFromRows(db, more);
  return out;
}

/** The few plain records' other fields, read by id: meta where the texts agree, the earlier place of a memory gone by `to`. */
function fillFromRows(db: LineageDb['db'], more: [MemoryStateRow, number, number][]): void {
  const ids = more.flatMap(([, fromVid, toVid]) => [fromVid, toVid]);
  const found = new Map(rawRows<[number, string | null, string | null, string]>(db, sql`
    SELECT id, origin_file, heading, json_array(origin_file, heading, memory_type, namespace, status, tags)
    FROM record_versions WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`).map((r) => [r[0], r]));
  for (const [state, fromVid, toVid] of more) {
    const [, file, heading, meta] = found.get(fromVid)!;
    state.from_file = file;
    state.from_heading = heading;
    if (state.from_sha === state.to_sha) {
      state.from_meta = meta;
      state.to_meta = found.get(toVid)![3];
    }
  }
}

/** The records a move links, read whole: their versions at each end and everything linkMemories may compare of them. */
function chainedStates(db: LineageDb['db'], p: { agentId: string; from: number; to: number; chained: string[] }): MemoryStateRow[] {
  const { agentId, from, to } = p;
  const side = (at: number) => sql`(SELECT w.id FROM record_versions w WHERE w.agent_id = ${agentId}
      AND w.record_id = ids.record_id AND w.seq <= ${at} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)`;
  const live = (v: 'f' | 't', at: number) => sql`CASE WHEN ${sql.raw(v)}.id IS NOT NULL AND ${sql.raw(v)}.op <> 'delete' AND ${notMovedAway(v, at)} THEN ${sql.raw(v)}.id END`;
  const meta = (v: 'f' | 't') => sql.raw(`json_array(${v}.origin_file, ${v}.heading, ${v}.memory_type, ${v}.namespace, ${v}.status, ${v}.tags)`);
  return allRows<MemoryStateRow>(db, sql`
    WITH ids(record_id) AS (SELECT value FROM json_each(${JSON.stringify(p.chained)})),
      ends AS (SELECT ids.record_id, ${side(from)} AS vf, ${side(to)} AS vt FROM ids)
    SELECT ends.record_id, ${live('f', from)} AS from_id, ${live('t', to)} AS to_id,
      f.content_sha256 AS from_sha, t.content_sha256 AS to_sha, ${meta('f')} AS from_meta, ${meta('t')} AS to_meta,
      f.origin_file AS from_file, f.heading AS from_heading, t.origin_file AS to_file, t.heading AS to_heading
    FROM ends LEFT JOIN record_versions f ON f.id = ends.vf LEFT JOIN record_versions t ON t.id = ends.vt ORDER BY ends.record_id`);
}
