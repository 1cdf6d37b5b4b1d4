import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { EntryKind, RecordOp } from '@/db/schema';
import { checkLimit, findAgent, type TenantScope } from './common';
import { allRows, firstRow } from './prepared';
import { firstOpPages, opCountsOf, type EntryOpCounts, type OpCounts, type SequenceOp } from './sequence-ops';
import { RAW_PAGE, RAW_PAGE_MAX, sequenceRawCount, sequenceRawPage, type SequenceRawChange } from './sequence-raw';

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
  const limit = checkLimit(params.limit, 50, 500);
  const before = params.before ?? Number.MAX_SAFE_INTEGER;
  const seqs = allRows<{ seq: number }>(params.db.db, sql`
    SELECT DISTINCT seq FROM ledger_entries WHERE agent_id = ${agent.id} AND seq < ${before}
    ORDER BY seq DESC LIMIT ${limit + 1}`);
  const page = seqs.slice(0, limit);
  const lowest = page[page.length - 1]?.seq;
  if (lowest === undefined) return { items: [], next_before: null };
  const items = allRows<SequenceItem>(params.db.db, sql`
    SELECT seq, kind, created_at AS synced_at, creates, updates, deletes, moves, raw_changed, raw_deleted, size_bytes
    FROM ledger_entries WHERE agent_id = ${agent.id} AND seq < ${before} AND seq >= ${lowest}
    ORDER BY seq DESC, kind DESC`);
  return { items, next_before: seqs.length > limit ? lowest : null };
}

export type { SequenceOp, OpCounts };
export { RAW_RECORD_IDS, sequenceRawChanges, type SequenceFileCount, type SequenceRawChange, type SequenceRawRow } from './sequence-raw';

export interface SequenceEntry { kind: EntryKind; synced_at: string; size_bytes: number }

export interface SequenceDetail {
  seq: number;
  /** `snapshot` when a rollover snapshot sits at this sequence, else `delta`. */
  kind: EntryKind;
  synced_at: string;
  entries: SequenceEntry[];
  /** With `opsLimit`: the first page of each op kind (see `op_cursors`); without: every op. */
  ops: SequenceOp[];
  op_counts: OpCounts;
  /** Per op kind, the cursor of its next page (GET …/sequences/:seq/ops), null when the page holds them all. */
  op_cursors: Record<RecordOp, string | null>;
  /** With `rawLimit`: the first page of raw files (see `raw_cursor`); without: every one. */
  raw: SequenceRawChange[];
  /** How many raw files the sequence changed, on every page. */
  raw_count: number;
  /** The cursor of the next page of raw files (GET …/sequences/:seq/raw), null when `raw` holds them all. */
  raw_cursor: string | null;
}

/**
 * One sequence: its record ops (with previous content) and raw changes, linked by file. A move is
 * one op, listed under both the file it left and the file it moved to. With `opsLimit`, `ops`
 * holds the first `opsLimit` ops of each kind and `op_cursors` pages on (see sequence-ops.ts); with
 * `rawLimit`, `raw` holds the first `rawLimit` files and `raw_cursor` pages on (sequence-raw.ts).
 */
export function getSequence(params: { db: LineageDb; agentId: string; seq: number; tenantId?: TenantScope; opsLimit?: number; rawLimit?: number }): SequenceDetail | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { db } = params.db;
  const rows = allRows<SequenceEntry & EntryOpCounts>(db, sql`
    SELECT kind, created_at AS synced_at, size_bytes, creates, updates, deletes, moves FROM ledger_entries
    WHERE agent_id = ${agent.id} AND seq = ${params.seq} ORDER BY kind`);
  const entries = rows.map(({ kind, synced_at, size_bytes }) => ({ kind, synced_at, size_bytes }));
  const last = entries[entries.length - 1];
  if (!last) return null;
  const limit = params.opsLimit === undefined ? Number.MAX_SAFE_INTEGER - 1 : checkLimit(params.opsLimit, 100, 1000);
  const rawLimit = params.rawLimit === undefined ? undefined : checkLimit(params.rawLimit, RAW_PAGE, RAW_PAGE_MAX);
  const { ops, op_cursors } = firstOpPages(params.db, agent.id, params.seq, limit);
  const raw = sequenceRawPage(params.db, { agentId: agent.id, seq: params.seq, ops, opsLimit: params.opsLimit, limit: rawLimit });
  return {
    seq: params.seq, kind: last.kind, synced_at: last.synced_at, entries, ops,
    op_counts: opCountsOf(rows), op_cursors,
    raw: raw.items,
    raw_count: rawLimit === undefined ? raw.items.length : sequenceRawCount(params.db, agent.id, params.seq),
    raw_cursor: raw.next_cursor,
  };
}

/** The sequence in force at `time`: the highest sequence synced at or before it, or null. */
export function sequenceAt(params: { db: LineageDb; agentId: string; time: Date; tenantId?: TenantScope }): { sequence: number; synced_at: string } | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const row = firstRow<{ sequence: number; synced_at: string }>(params.db.db, sql`
    SELECT seq AS sequence, created_at AS synced_at FROM ledger_entries
    WHERE agent_id = ${agent.id} AND created_at <= ${params.time.toISOString()}
    ORDER BY seq DESC, kind DESC LIMIT 1`);
  return row ?? null;
}
