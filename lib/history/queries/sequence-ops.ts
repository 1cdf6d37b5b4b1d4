/**
 * A sequence's record ops, one op kind at a time, keyset-paged in (entry_kind, id) order through the
 * index on (agent_id, seq, op, entry_kind) (its rowid ends it), so a page reads its own rows only.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { RECORD_OPS, type EntryKind, type RecordOp } from '@/db/schema';
import { LedgerError } from '@/lib/ledger';
import { checkLimit, decodeCursor, encodeCursor, findAgent, movedFromFile, type CursorList, type TenantScope } from './common';
import { allRows } from './prepared';

export interface SequenceOp {
  op: RecordOp;
  record_id: string;
  origin_file: string | null;
  heading: string | null;
  memory_type: string;
  namespace: string;
  content: string;
  /** An update's previous text; a move's text in the file it left; a delete's last text. */
  previous_content: string | null;
  moved_from: string | null;
  /** A move's file of origin (`origin_file` is the file it moved to); null for other ops. */
  from_file: string | null;
  entry_kind: EntryKind;
}

export type OpCounts = Record<RecordOp, number>;

const isOpCursor = (v: unknown): v is [EntryKind, number] =>
  Array.isArray(v) && v.length === 2 && (v[0] === 'delta' || v[0] === 'snapshot') && Number.isSafeInteger(v[1]);

/** A ledger entry's op counts, as the indexer kept them when it wrote the entry's versions (lib/history/indexer.ts). */
export interface EntryOpCounts { creates: number; updates: number; deletes: number; moves: number }

/**
 * How many ops of each kind the sequence holds: the sum over its entries of the counts the indexer
 * stored with each entry, one per version it wrote (a move once, its left half writing none), so
 * never a count over the sequence's versions (50,000 at a first sync of 50,000 memories).
 */
export function opCountsOf(entries: EntryOpCounts[]): OpCounts {
  const counts: OpCounts = { create: 0, update: 0, delete: 0, move: 0 };
  for (const e of entries) {
    counts.create += Number(e.creates);
    counts.update += Number(e.updates);
    counts.delete += Number(e.deletes);
    counts.move += Number(e.moves);
  }
  return counts;
}

/** The list an ops cursor pages (common.ts `CursorList`): one op kind of one agent's sequence. */
export const opsList = (agentId: string, seq: number, op: RecordOp): CursorList => ['sequence ops', agentId, seq, op];

/** One page of the sequence's ops of kind `op`, after `cursor`, in (entry_kind, id) order. */
export function sequenceOpsPage(db: LineageDb, agentId: string, seq: number, op: RecordOp, limit: number, cursor?: string):
  { items: SequenceOp[]; next_cursor: string | null } {
  const after = cursor === undefined ? sql`` : (() => {
    const [kind, id] = decodeCursor(cursor, opsList(agentId, seq, op), isOpCursor);
    return sql`AND (v.entry_kind, v.id) > (${kind}, ${id})`;
  })();
  const rows = allRows<SequenceOp & { id: number }>(db.db, sql`
    SELECT v.id, v.op, v.record_id, v.origin_file, v.heading, v.memory_type, v.namespace, v.content, v.moved_from, v.entry_kind,
      CASE WHEN v.op = 'create' THEN NULL ELSE (
        SELECT p.content FROM record_versions p
        WHERE p.agent_id = v.agent_id AND p.record_id = coalesce(v.moved_from, v.record_id)
          AND (p.seq < v.seq OR (p.seq = v.seq AND p.entry_kind < v.entry_kind))
        ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END AS previous_content,
      ${movedFromFile('v')} AS from_file
    FROM record_versions v WHERE v.agent_id = ${agentId} AND v.seq = ${seq} AND v.op = ${op} ${after}
    ORDER BY v.entry_kind, v.id LIMIT ${limit + 1}`);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ id: _id, ...o }) => o),
    next_cursor: rows.length > limit && last ? encodeCursor(opsList(agentId, seq, op), [last.entry_kind, last.id]) : null,
  };
}

/**
 * The first page (`limit` ops) of each op kind of the sequence, in the order the sequence lists them
 * (by entry, then op kind), and each kind's cursor on.
 */
export function firstOpPages(db: LineageDb, agentId: string, seq: number, limit: number): { ops: SequenceOp[]; op_cursors: Record<RecordOp, string | null> } {
  const ops: SequenceOp[] = [];
  const op_cursors = {} as Record<RecordOp, string | null>;
  for (const op of RECORD_OPS) {
    const page = sequenceOpsPage(db, agentId, seq, op, limit);
    ops.push(...page.items);
    op_cursors[op] = page.next_cursor;
  }
  return { ops: sortByEntry(ops), op_cursors };
}

/** Stable: within an entry, ops keep their kind order. */
export function sortByEntry(ops: SequenceOp[]): SequenceOp[] {
  return ops.sort((a, b) => (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0));
}

/** The API's verb: a page of one op kind of a sequence. Null when the agent is unknown. */
export function getSequenceOps(params: {
  db: LineageDb; agentId: string; seq: number; op: RecordOp; limit?: number; cursor?: string; tenantId?: TenantScope;
}): { op: RecordOp; items: SequenceOp[]; next_cursor: string | null } | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  if (!(RECORD_OPS as readonly string[]).includes(params.op)) {
    throw new LedgerError('invalid_input', `op must be create, update, delete or move, got "${String(params.op)}"`);
  }
  const limit = checkLimit(params.limit, 100, 1000);
  return { op: params.op, ...sequenceOpsPage(params.db, agent.id, params.seq, params.op, limit, params.cursor) };
}
