/**
 * The memories' rows of a comparison on SQLite (compare.ts): the moves in (from, to], and per record
 * touched in it its version live at each end. What costs is reading version rows (~900 bytes each,
 * one page read apiece, scattered over the history for the earlier end): at #200 → #1999 of the
 * ui-scale big agent (6,294 records, no moves) a read of both ends' rows per record was ~25 ms of
 * SQLite and ~13 ms of conversion. So a record no move links is read from the range itself (its
 * version at `to`) and one seek of a narrow index (its version at `from`), classified and ranked in
 * SQL, and only the handful whose answer hinges on more are read by id afterwards (plainKinds); the
 * records a move links are few and read whole (chainedStates). The moves come from the partial
 * `(agent_id, moved_from)` index.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { addPlain, noKinds, type MemoryKinds, type MemoryStateRow, type MoveEdge, type PlainState } from './compare-chains';
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
 * The memories touched in (from, to], on their way to linkMemories: every record with a version in
 * the range or moved away in it. `edges` are the moves in the range (moveEdges). The records a move
 * links are few and read whole (`chained`: their versions at each end, in record id order, for
 * linkMemories to walk); every other one — nearly all — is read by plainKinds, which classifies them
 * in SQL and adds to `kinds` the counts and the first `limit` of each kind.
 */
export function memoryStates(db: LineageDb['db'], p: { agentId: string; from: number; to: number; edges: readonly MoveEdge[]; limit: number }): { kinds: MemoryKinds; chained: MemoryStateRow[] } {
  const chained = [...new Set(p.edges.flatMap((e) => [e.source, e.target]))];
  const kinds = noKinds();
  plainKinds(db, { ...p, chained, kinds });
  return { kinds, chained: chained.length === 0 ? [] : chainedStates(db, { ...p, chained }) };
}

/** A version is live at `at` unless it is a delete or a move away (to another record) follows it by then. */
const notMovedAway = (v: string, at: number) => sql`NOT EXISTS (SELECT 1 FROM record_versions m WHERE m.agent_id = ${sql.raw(v)}.agent_id
  AND m.moved_from = ${sql.raw(v)}.record_id AND +m.seq <= ${at}
  AND (+m.seq > ${sql.raw(v)}.seq OR (+m.seq = ${sql.raw(v)}.seq AND m.entry_kind > ${sql.raw(v)}.entry_kind)))`;

/**
 * A plain record as plainKinds reads it: `n` rows count a kind's ranked records (those without a
 * wide character), `r` rows are records (`kind` 1 created, 2 updated, 9 decided in JS; `count` 1 for
 * a wide one; `fromSide` `<id> <live 0|1> <same text 0|1>`).
 */
type PlainRow = [row: 'n' | 'r', kind: number, count: number, recordId: string | null, toVid: number | null, toLive: number | null, fromSide: string | null, toFile: string | null, toHeading: string | null];

/** A plain record whose earlier row must be read before it is classified, with the two version ids to read. */
type Pending = { state: PlainState; fromVid: number; toVid: number; sameText: boolean };

/** Any character from U+E000 on, where SQLite's byte order of UTF-8 and JavaScript's of UTF-16 part. */
const WIDE = `*[${String.fromCodePoint(0xe000)}-${String.fromCodePoint(0x10ffff)}]*`;

/**
 * The records no move in (from, to] links, classified in SQL, added to `kinds`. A record's version
 * at `to` is its newest one in the range (one pass over the range, grouped by record); its version
 * at `from` one seek of record_versions_state_idx, which holds what is needed of it beside the key
 * (row id, tombstone or not, content digest), packed into one value (`<id> <live> <same text>`: a
 * scalar subquery gives one column; the row itself is a scattered page read per record).
 *
 * A record born by `to` is created, one whose text differs at the two ends updated: of each, SQL
 * counts them all and returns the first `limit` in place order (file, heading, id — SQLite's byte
 * order, which is JavaScript's for text without a character from U+E000 on; records whose file or
 * heading holds one are returned whole, for firstInPlaceOrder to place). The rest — gone by `to`
 * (their earlier row places them) or the same text at both ends (everything else is compared then)
 * — are few, returned and decided as before (addPending). So thousands of records touched cost one
 * statement and a page of rows, not an object each (a far comparison's rows were ~7 ms of
 * conversion and ~20 ms more while the JIT warmed up).
 */
function plainKinds(db: LineageDb['db'], p: { agentId: string; from: number; to: number; chained: string[]; limit: number; kinds: MemoryKinds }): void {
  const { agentId, from, to, limit } = p;
  // `max()` makes SQLite take the other columns from the newest row of each record: the greatest
  // (seq, entry_kind), 'snapshot' sorting after 'delta' (ENTRY_KINDS) as the reads elsewhere order them.
  const page = (kind: number) => sql`SELECT * FROM (SELECT 'r', kind, 0, record_id, vt, tl, fp, tf, th FROM c
    WHERE kind = ${kind} AND NOT wide ORDER BY file, heading, record_id LIMIT ${limit})`;
  const rows = rawRows<PlainRow>(db, sql`
    WITH r AS (
      SELECT record_id, max(seq * 2 + (entry_kind = 'snapshot')) AS newest, id, agent_id, seq, entry_kind, op, content_sha256, origin_file, heading
      FROM record_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to}
        AND record_id NOT IN (SELECT value FROM json_each(${JSON.stringify(p.chained)}))
      GROUP BY record_id),
    s AS MATERIALIZED (
      SELECT r.record_id, r.id AS vt, r.op <> 'delete' AND ${notMovedAway('r', to)} AS tl, r.origin_file AS tf, r.heading AS th,
        (SELECT w.id || ' ' || (w.op <> 'delete' AND ${notMovedAway('w', from)}) || ' ' || (w.content_sha256 = r.content_sha256)
          FROM record_versions w INDEXED BY record_versions_state_idx
          WHERE w.agent_id = ${agentId} AND w.record_id = r.record_id AND w.seq <= ${from}
          ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS fp
      FROM r),
    c AS MATERIALIZED (
      SELECT record_id, vt, tl, fp, tf, th, coalesce(tf, '') AS file, coalesce(th, '') AS heading,
        CASE WHEN fp IS NULL OR substr(fp, -3, 1) = '0' THEN CASE WHEN tl THEN 1 END
          WHEN NOT tl OR substr(fp, -1) = '1' THEN 9 ELSE 2 END AS kind,
        (coalesce(tf, '') GLOB ${WIDE} OR coalesce(th, '') GLOB ${WIDE}) AS wide
      FROM s)
    SELECT 'n', kind, count(*), NULL, NULL, NULL, NULL, NULL, NULL FROM c WHERE kind IN (1, 2) AND NOT wide GROUP BY kind
    UNION ALL ${page(1)} UNION ALL ${page(2)}
    UNION ALL SELECT 'r', kind, 1, record_id, vt, tl, fp, tf, th FROM c WHERE kind = 9 OR (kind IN (1, 2) AND wide)`);
  const pending: Pending[] = [];
  // Of each kind SQL ranks: how many there are (not wide), less those it listed.
  const unlisted = { created: 0, updated: 0 };
  for (const [row, kind, count, recordId, toVid, toLive, side, toFile, toHeading] of rows) {
    const name = kind === 1 ? 'created' : 'updated';
    if (row === 'n') {
      unlisted[name] += count;
      continue;
    }
    if (count === 0) unlisted[name]--;
    // `<id> <0|1> <0|1>`: the id, whether that version is live at `from`, whether its text is the one at `to`.
    const fromVid = side === null ? null : Number(side.slice(0, side.length - 4));
    const fromId = side !== null && side.charCodeAt(side.length - 3) === 49 ? fromVid : null;
    const sameText = side !== null && side.charCodeAt(side.length - 1) === 49;
    const state: PlainState = {
      record_id: recordId!, from_id: fromId, to_id: toLive ? toVid : null, changed: !sameText,
      from_file: null, from_heading: null, to_file: toFile, to_heading: toHeading,
    };
    if (kind === 9) pending.push({ state, fromVid: fromVid!, toVid: toVid!, sameText });
    else addPlain(p.kinds, state);
  }
  p.kinds.unlisted.created += unlisted.created;
  p.kinds.unlisted.updated += unlisted.updated;
  if (pending.length > 0) addPending(db, p.kinds, pending);
}

/** The plain records that needed their earlier row: read by id (with the later one where the texts agree), then classified. */
function addPending(db: LineageDb['db'], kinds: MemoryKinds, pending: Pending[]): void {
  const ids = pending.flatMap((q) => (q.sameText ? [q.fromVid, q.toVid] : [q.fromVid]));
  const found = new Map(rawRows<[number, string | null, string | null, string]>(db, sql`
    SELECT id, origin_file, heading, json_array(origin_file, heading, memory_type, namespace, status, tags)
    FROM record_versions WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`).map((r) => [r[0], r]));
  for (const { state, fromVid, toVid, sameText } of pending) {
    const [, file, heading, meta] = found.get(fromVid)!;
    state.from_file = file;
    state.from_heading = heading;
    if (sameText) state.changed = meta !== found.get(toVid)![3];
    addPlain(kinds, state);
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
