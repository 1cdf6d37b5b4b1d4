import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { RECORD_OPS, type EntryKind, type RecordOp } from '@/db/schema';
import { clampLimit, findAgent, movedFromFile, type TenantScope } from './common';
import { sequenceOpCounts, sequenceOpsPage, type OpCounts, type SequenceOp } from './sequence-ops';

export interface SequenceItem {
  seq: number;
  kind: EntryKind;
  synced_at: string;
  creates: number;
  updates: number;
  deletes: number;
  /** Moves, each counted once (in neither `creates` nor `deletes`). */
  moves: number;
  raw_changed: number;
  raw_deleted: number;
  size_bytes: number;
}

/**
 * An agent's timeline, newest first. `limit` counts sequences; a sequence holding both a delta and
 * a rollover snapshot yields both entries on the same page. Null when the agent is unknown.
 */
export function getSequences(params: { db: LineageDb; agentId: string; before?: number; limit?: number; tenantId?: TenantScope }):
  { items: SequenceItem[]; next_before: number | null } | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const limit = clampLimit(params.limit, 50, 500);
  const before = params.before ?? Number.MAX_SAFE_INTEGER;
  const seqs = params.db.db.all<{ seq: number }>(sql`
    SELECT DISTINCT seq FROM ledger_entries WHERE agent_id = ${agent.id} AND seq < ${before}
    ORDER BY seq DESC LIMIT ${limit + 1}`);
  const page = seqs.slice(0, limit);
  const lowest = page[page.length - 1]?.seq;
  if (lowest === undefined) return { items: [], next_before: null };
  const items = params.db.db.all<SequenceItem>(sql`
    SELECT seq, kind, created_at AS synced_at, creates, updates, deletes, moves, raw_changed, raw_deleted, size_bytes
    FROM ledger_entries WHERE agent_id = ${agent.id} AND seq < ${before} AND seq >= ${lowest}
    ORDER BY seq DESC, kind DESC`);
  return { items, next_before: seqs.length > limit ? lowest : null };
}

export type { SequenceOp, OpCounts };

export interface SequenceRawChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  size: number;
  /** The ops of the file (at most RAW_RECORD_IDS of them; `record_count` says how many). */
  record_ids: string[];
  record_count: number;
  entry_kind: EntryKind;
}

/** A raw file lists at most this many of its record ops. */
export const RAW_RECORD_IDS = 20;

export interface SequenceDetail {
  seq: number;
  /** `snapshot` when a rollover snapshot sits at this sequence, else `delta`. */
  kind: EntryKind;
  synced_at: string;
  entries: { kind: EntryKind; synced_at: string; size_bytes: number }[];
  /** With `opsLimit`: the first page of each op kind (see `op_cursors`); without: every op. */
  ops: SequenceOp[];
  op_counts: OpCounts;
  /** Per op kind, the cursor of its next page (GET …/sequences/:seq/ops), null when the page holds them all. */
  op_cursors: Record<RecordOp, string | null>;
  raw: SequenceRawChange[];
}

/**
 * One sequence: its record ops (with previous content) and raw changes, linked by file. A move is
 * one op, listed under both the file it left and the file it moved to. With `opsLimit`, `ops`
 * holds the first `opsLimit` ops of each kind and `op_cursors` pages on (see sequence-ops.ts).
 */
export function getSequence(params: { db: LineageDb; agentId: string; seq: number; tenantId?: TenantScope; opsLimit?: number }): SequenceDetail | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { db } = params.db;
  const entries = db.all<{ kind: EntryKind; synced_at: string; size_bytes: number }>(sql`
    SELECT kind, created_at AS synced_at, size_bytes FROM ledger_entries
    WHERE agent_id = ${agent.id} AND seq = ${params.seq} ORDER BY kind`);
  const last = entries[entries.length - 1];
  if (!last) return null;
  const limit = params.opsLimit === undefined ? Number.MAX_SAFE_INTEGER - 1 : clampLimit(params.opsLimit, 100, 1000);
  const ops: SequenceOp[] = [];
  const op_cursors = {} as Record<RecordOp, string | null>;
  for (const op of RECORD_OPS) {
    const page = sequenceOpsPage(params.db, agent.id, params.seq, op, limit);
    ops.push(...page.items);
    op_cursors[op] = page.next_cursor;
  }
  ops.sort((a, b) => (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0));
  // How many ops touched each raw file, counted on the (agent_id, seq, entry_kind, origin_file) index, and the
  // moves' files of origin (a move touches both files): never every op of a 50,000-op sequence.
  const byFile = db.all<SequenceFileCount>(sql`
    SELECT origin_file AS path, entry_kind, count(*) AS count FROM record_versions
    WHERE agent_id = ${agent.id} AND seq = ${params.seq} GROUP BY entry_kind, origin_file`);
  const movesFrom = db.all<SequenceFileCount>(sql`
    SELECT from_file AS path, entry_kind, count(*) AS count FROM (
      SELECT v.entry_kind, ${movedFromFile('v')} AS from_file FROM record_versions v
      WHERE v.agent_id = ${agent.id} AND v.seq = ${params.seq} AND v.op = 'move')
    GROUP BY entry_kind, from_file`);
  const rawRows = db.all<SequenceRawRow>(sql`
    SELECT f.path, f.deleted, f.size, f.entry_kind, (
      SELECT p.deleted FROM raw_file_versions p
      WHERE p.agent_id = f.agent_id AND p.path = f.path
        AND (p.seq < f.seq OR (p.seq = f.seq AND p.entry_kind < f.entry_kind))
      ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS prev_deleted
    FROM raw_file_versions f WHERE f.agent_id = ${agent.id} AND f.seq = ${params.seq}
    ORDER BY f.entry_kind, f.path`);
  const raw = sequenceRawChanges(rawRows, [...byFile, ...movesFrom], ops, params.opsLimit);
  return {
    seq: params.seq, kind: last.kind, synced_at: last.synced_at, entries, ops,
    op_counts: sequenceOpCounts(params.db, agent.id, params.seq), op_cursors, raw,
  };
}

/** A raw file row of one sequence, with the deleted flag of the version before it (null: none). */
export interface SequenceRawRow { path: string; deleted: number; size: number; entry_kind: EntryKind; prev_deleted: number | null }

/** How many ops of one entry touched a file: versions whose file it is, or moves out of it. */
export interface SequenceFileCount { path: string | null; entry_kind: EntryKind; count: number }

/**
 * A sequence's raw file changes from its rows (both backends): added, modified or deleted, with how
 * many ops touched each file (`counts`, summed per file and entry) and the ids of those among `ops`
 * — every op of the sequence without `opsLimit`; with it, the first page of each kind, whose cards
 * the ids link to, at most RAW_RECORD_IDS per file.
 */
export function sequenceRawChanges(rawRows: SequenceRawRow[], counts: SequenceFileCount[], ops: SequenceOp[], opsLimit: number | undefined): SequenceRawChange[] {
  const key = (path: string | null, kind: EntryKind) => `${kind}\u0000${path ?? ''}`;
  const total = new Map<string, number>();
  for (const c of counts) if (c.path !== null) total.set(key(c.path, c.entry_kind), (total.get(key(c.path, c.entry_kind)) ?? 0) + c.count);
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
    record_count: total.get(key(r.path, r.entry_kind)) ?? 0,
    entry_kind: r.entry_kind,
  }));
}

/** The sequence in force at `time`: the highest sequence synced at or before it, or null. */
export function sequenceAt(params: { db: LineageDb; agentId: string; time: Date; tenantId?: TenantScope }): { sequence: number; synced_at: string } | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const row = params.db.db.get<{ sequence: number; synced_at: string } | undefined>(sql`
    SELECT seq AS sequence, created_at AS synced_at FROM ledger_entries
    WHERE agent_id = ${agent.id} AND created_at <= ${params.time.toISOString()}
    ORDER BY seq DESC, kind DESC LIMIT 1`);
  return row ?? null;
}
