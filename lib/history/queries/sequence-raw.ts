/**
 * A sequence's raw file changes, keyset-paged in (entry_kind, path) order: a first sync can change
 * 500 files carrying 50,000 ops, and the page draws a hundred of them. Each page counts the ops of
 * its own files only, on the (agent_id, seq, entry_kind, origin_file) index, never every op of the
 * sequence. The shapes and the fold from rows are shared with the PostgreSQL twin (pg/sequences.ts).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { EntryKind } from '@/db/schema';
import { checkLimit, decodeCursor, encodeCursor, findAgent, movedFromFile, type CursorList, type TenantScope } from './common';
import { allRows, firstRow } from './prepared';
import { firstOpPages, type SequenceOp } from './sequence-ops';

export interface SequenceRawChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  size: number;
  /** The ops of the file (at most RAW_RECORD_IDS of them; `record_count` says how many). */
  record_ids: string[];
  record_count: number;
  entry_kind: EntryKind;
}

export interface SequenceRawPage { items: SequenceRawChange[]; next_cursor: string | null }

/** A raw file lists at most this many of its record ops. */
export const RAW_RECORD_IDS = 20;
/** Raw files per page when the caller pages them (the dashboard draws one page at a time). */
export const RAW_PAGE = 100;
export const RAW_PAGE_MAX = 1000;

/**
 * A raw file row of one sequence: the deleted flag of the version before it (null: none) and how
 * many of the entry's versions have it as their file (`own_ops`).
 */
export interface SequenceRawRow { path: string; deleted: number; size: number; entry_kind: EntryKind; prev_deleted: number | null; own_ops: number }

/** How many moves of one entry left a file (a move touches both its files). */
export interface SequenceFileCount { path: string | null; entry_kind: EntryKind; count: number }

// No stored path holds U+0000 (PostgreSQL text cannot): a cursor with one was not given out.
const isRawCursor = (v: unknown): v is [EntryKind, string] =>
  Array.isArray(v) && v.length === 2 && (v[0] === 'delta' || v[0] === 'snapshot') && typeof v[1] === 'string' && !v[1].includes('\u0000');

/** The list a raw-files cursor pages (common.ts `CursorList`): one agent's sequence. */
const rawList = (agentId: string, seq: number): CursorList => ['sequence raw', agentId, seq];

/** The position after which the next page starts; throws `invalid_input` for a cursor this sequence's list did not give out. */
export function decodeRawCursor(cursor: string, agentId: string, seq: number): [EntryKind, string] {
  return decodeCursor(cursor, rawList(agentId, seq), isRawCursor);
}

/** Cuts `limit + 1` fetched rows to the page and the cursor of the page after it (null: the last page). */
export function rawPageOf<R extends { entry_kind: EntryKind; path: string }>(rows: R[], limit: number, agentId: string, seq: number): { page: R[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next_cursor: rows.length > limit && last ? encodeCursor(rawList(agentId, seq), [last.entry_kind, last.path]) : null };
}

/**
 * The raw file changes from their rows (both backends): added, modified or deleted, with how many
 * ops touched each file (its own versions plus the moves out of it, `movesFrom`) and the ids of
 * those among `ops` — every op of the sequence without `opsLimit`; with it, the first page of each
 * kind, whose cards the ids link to, at most RAW_RECORD_IDS per file.
 */
export function sequenceRawChanges(rawRows: SequenceRawRow[], movesFrom: SequenceFileCount[], ops: SequenceOp[], opsLimit: number | undefined): SequenceRawChange[] {
  const key = (path: string | null, kind: EntryKind) => `${kind}\u0000${path ?? ''}`;
  const moved = new Map<string, number>();
  for (const c of movesFrom) if (c.path !== null) moved.set(key(c.path, c.entry_kind), (moved.get(key(c.path, c.entry_kind)) ?? 0) + c.count);
  const ids = new Map<string, string[]>();
  const note = (path: string | null, o: SequenceOp) => {
    if (path === null) return;
    const list = ids.get(key(path, o.entry_kind));
    if (!list) ids.set(key(path, o.entry_kind), [o.record_id]);
    else if (opsLimit === undefined || list.length < RAW_RECORD_IDS) list.push(o.record_id);
  };
  for (const o of ops) {
    note(o.origin_file, o);
    if (o.from_file !== o.origin_file) note(o.from_file, o);
  }
  return rawRows.map((r): SequenceRawChange => ({
    path: r.path,
    change: r.deleted ? 'deleted' : r.prev_deleted === null || r.prev_deleted === 1 ? 'added' : 'modified',
    size: r.size,
    record_ids: ids.get(key(r.path, r.entry_kind)) ?? [],
    record_count: Number(r.own_ops) + (moved.get(key(r.path, r.entry_kind)) ?? 0),
    entry_kind: r.entry_kind,
  }));
}

/**
 * One page of the sequence's raw files after `cursor` (`limit` undefined: all of them), linked to
 * `ops`. The page is chosen first and only its rows are counted and dated.
 */
export function sequenceRawPage(db: LineageDb, p: { agentId: string; seq: number; ops: SequenceOp[]; opsLimit?: number; limit?: number; cursor?: string }): SequenceRawPage {
  const limit = p.limit ?? Number.MAX_SAFE_INTEGER - 1;
  const after = p.cursor === undefined ? sql`` : (() => {
    const [kind, path] = decodeRawCursor(p.cursor, p.agentId, p.seq);
    return sql`AND (entry_kind, path) > (${kind}, ${path})`;
  })();
  const rows = allRows<SequenceRawRow>(db.db, sql`
    SELECT f.path, f.deleted, f.size, f.entry_kind, (
      SELECT p.deleted FROM raw_file_versions p
      WHERE p.agent_id = f.agent_id AND p.path = f.path
        AND (p.seq < f.seq OR (p.seq = f.seq AND p.entry_kind < f.entry_kind))
      ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS prev_deleted, (
      SELECT count(*) FROM record_versions v
      WHERE v.agent_id = f.agent_id AND v.seq = f.seq AND v.entry_kind = f.entry_kind AND v.origin_file = f.path) AS own_ops
    FROM (SELECT agent_id, path, seq, entry_kind, deleted, size FROM raw_file_versions
      WHERE agent_id = ${p.agentId} AND seq = ${p.seq} ${after} ORDER BY entry_kind, path LIMIT ${limit + 1}) f
    ORDER BY f.entry_kind, f.path`);
  const { page, next_cursor } = rawPageOf(rows, limit, p.agentId, p.seq);
  // The moves' files of origin (a move touches both files), over the sequence's moves only.
  const movesFrom = page.length === 0 ? [] : allRows<SequenceFileCount>(db.db, sql`
    SELECT from_file AS path, entry_kind, count(*) AS count FROM (
      SELECT v.entry_kind, ${movedFromFile('v')} AS from_file FROM record_versions v
      WHERE v.agent_id = ${p.agentId} AND v.seq = ${p.seq} AND v.op = 'move')
    GROUP BY entry_kind, from_file`);
  return { items: sequenceRawChanges(page, movesFrom, p.ops, p.opsLimit), next_cursor };
}

/** How many raw files the sequence changed (its entries' rows; an index-only count). */
export function sequenceRawCount(db: LineageDb, agentId: string, seq: number): number {
  return firstRow<{ n: number }>(db.db, sql`SELECT count(*) AS n FROM raw_file_versions WHERE agent_id = ${agentId} AND seq = ${seq}`)!.n;
}

/**
 * The API's verb: a page of a sequence's raw files, whose `record_ids` link to the first
 * `opsLimit` ops of each kind (the page of ops the sequence came with). Null when the agent is unknown.
 */
export function getSequenceRaw(params: {
  db: LineageDb; agentId: string; seq: number; limit?: number; cursor?: string; opsLimit?: number; tenantId?: TenantScope;
}): SequenceRawPage | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const limit = checkLimit(params.limit, RAW_PAGE, RAW_PAGE_MAX);
  const opsLimit = checkLimit(params.opsLimit, 100, 1000);
  if (params.cursor !== undefined) decodeRawCursor(params.cursor, agent.id, params.seq); // a bad cursor is refused before any work
  const { ops } = firstOpPages(params.db, agent.id, params.seq, opsLimit);
  return sequenceRawPage(params.db, { agentId: agent.id, seq: params.seq, ops, opsLimit, limit, cursor: params.cursor });
}
