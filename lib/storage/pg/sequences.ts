/**
 * An agent's timeline, one sequence's detail and the sequence in force at a time
 * (lib/history/queries/sequences.ts) on PostgreSQL, with the same rows and order. A sequence the caller
 * gives is compared as `bigint`: SQLite compares any integer with a column, PostgreSQL refuses one past int4.
 */
import { RECORD_OPS, type EntryKind, type RecordOp } from '@/db/schema';
import { LedgerError } from '@/lib/ledger/errors';
import { checkLimit, decodeCursor, encodeCursor, type TenantScope } from '@/lib/history/queries/common';
import type { SequenceDetail, SequenceEntry, SequenceItem } from '@/lib/history/queries/sequences';
import { opCountsOf, opsList, sortByEntry, type EntryOpCounts, type SequenceOp } from '@/lib/history/queries/sequence-ops';
import { RAW_PAGE, RAW_PAGE_MAX, decodeRawCursor, type SequenceRawPage } from '@/lib/history/queries/sequence-raw';
import { findAgent } from './agents';
import { first, Params, rows, type Queryable } from './sql';
import { MOVED_FROM_FILE } from './changes';
import { sequenceRawCount, sequenceRawPage } from './sequence-raw';

export async function getSequences(db: Queryable, params: { agentId: string; before?: number; limit?: number; tenantId?: TenantScope }):
  Promise<{ items: SequenceItem[]; next_before: number | null } | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const limit = checkLimit(params.limit, 50, 500);
  const before = params.before ?? Number.MAX_SAFE_INTEGER;
  const seqs = await rows<{ seq: number }>(db, `SELECT DISTINCT seq FROM ledger_entries WHERE agent_id = $1 AND seq < $2::bigint
    ORDER BY seq DESC LIMIT $3`, [agent.id, before, limit + 1]);
  const page = seqs.slice(0, limit);
  const lowest = page[page.length - 1]?.seq;
  if (lowest === undefined) return { items: [], next_before: null };
  const items = await rows<SequenceItem>(db, `
    SELECT seq, kind, created_at AS synced_at, creates, updates, deletes, moves, raw_changed, raw_deleted, size_bytes
    FROM ledger_entries WHERE agent_id = $1 AND seq < $2::bigint AND seq >= $3 ORDER BY seq DESC, kind COLLATE "C" DESC`, [agent.id, before, lowest]);
  return { items, next_before: seqs.length > limit ? lowest : null };
}

const isOpCursor = (v: unknown): v is [EntryKind, number] =>
  Array.isArray(v) && v.length === 2 && (v[0] === 'delta' || v[0] === 'snapshot') && Number.isSafeInteger(v[1]);

/** One page of the sequence's ops of kind `op` after `cursor`, in (entry_kind, id) order (`sequenceOpsPage`). */
export async function sequenceOpsPage(db: Queryable, agentId: string, seq: number, op: RecordOp, limit: number, cursor?: string):
  Promise<{ items: SequenceOp[]; next_cursor: string | null }> {
  const p = new Params();
  const a = p.add(agentId);
  const n = p.add(seq);
  const o = p.add(op);
  let after = '';
  if (cursor !== undefined) {
    const [kind, id] = decodeCursor(cursor, opsList(agentId, seq, op), isOpCursor);
    after = `AND (v.entry_kind COLLATE "C", v.id) > (${p.add(kind)}, ${p.add(id)}::bigint)`;
  }
  const found = await rows<SequenceOp & { id: number }>(db, `
    SELECT v.id, v.op, v.record_id, v.origin_file, v.heading, v.memory_type, v.namespace, v.content, v.moved_from, v.entry_kind,
      CASE WHEN v.op = 'create' THEN NULL ELSE (
        SELECT p.content FROM record_versions p
        WHERE p.agent_id = v.agent_id AND p.record_id = coalesce(v.moved_from, v.record_id)
          AND (p.seq < v.seq OR (p.seq = v.seq AND p.entry_kind < v.entry_kind))
        ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END AS previous_content,
      ${MOVED_FROM_FILE} AS from_file
    FROM record_versions v WHERE v.agent_id = ${a} AND v.seq = ${n}::bigint AND v.op = ${o} ${after}
    ORDER BY v.entry_kind COLLATE "C", v.id LIMIT ${p.add(limit + 1)}`, p);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ id: _id, ...rest }) => rest),
    next_cursor: found.length > limit && last ? encodeCursor(opsList(agentId, seq, op), [last.entry_kind, last.id]) : null,
  };
}

/** A page of one op kind of a sequence (`getSequenceOps`). Null when the agent is unknown. */
export async function getSequenceOps(db: Queryable, params: {
  agentId: string; seq: number; op: RecordOp; limit?: number; cursor?: string; tenantId?: TenantScope;
}): Promise<{ op: RecordOp; items: SequenceOp[]; next_cursor: string | null } | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  if (!(RECORD_OPS as readonly string[]).includes(params.op)) {
    throw new LedgerError('invalid_input', `op must be create, update, delete or move, got "${String(params.op)}"`);
  }
  const limit = checkLimit(params.limit, 100, 1000);
  return { op: params.op, ...(await sequenceOpsPage(db, agent.id, params.seq, params.op, limit, params.cursor)) };
}

/** The first page of each op kind, in the order the sequence lists them (`firstOpPages`). */
export async function firstOpPages(db: Queryable, agentId: string, seq: number, limit: number):
  Promise<{ ops: SequenceOp[]; op_cursors: Record<RecordOp, string | null> }> {
  const ops: SequenceOp[] = [];
  const op_cursors = {} as Record<RecordOp, string | null>;
  for (const op of RECORD_OPS) {
    const page = await sequenceOpsPage(db, agentId, seq, op, limit);
    ops.push(...page.items);
    op_cursors[op] = page.next_cursor;
  }
  return { ops: sortByEntry(ops), op_cursors };
}

export async function getSequence(db: Queryable, params: { agentId: string; seq: number; tenantId?: TenantScope; opsLimit?: number; rawLimit?: number }):
  Promise<SequenceDetail | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const found = await rows<SequenceEntry & EntryOpCounts>(db, `
    SELECT kind, created_at AS synced_at, size_bytes, creates, updates, deletes, moves FROM ledger_entries
    WHERE agent_id = $1 AND seq = $2::bigint ORDER BY kind COLLATE "C"`, [agent.id, params.seq]);
  const entries = found.map(({ kind, synced_at, size_bytes }) => ({ kind, synced_at, size_bytes }));
  const last = entries[entries.length - 1];
  if (!last) return null;
  const limit = params.opsLimit === undefined ? Number.MAX_SAFE_INTEGER - 1 : checkLimit(params.opsLimit, 100, 1000);
  const rawLimit = params.rawLimit === undefined ? undefined : checkLimit(params.rawLimit, RAW_PAGE, RAW_PAGE_MAX);
  const { ops, op_cursors } = await firstOpPages(db, agent.id, params.seq, limit);
  const raw = await sequenceRawPage(db, { agentId: agent.id, seq: params.seq, ops, opsLimit: params.opsLimit, limit: rawLimit });
  return {
    seq: params.seq, kind: last.kind, synced_at: last.synced_at, entries, ops,
    op_counts: opCountsOf(found), op_cursors,
    raw: raw.items,
    raw_count: rawLimit === undefined ? raw.items.length : await sequenceRawCount(db, agent.id, params.seq),
    raw_cursor: raw.next_cursor,
  };
}

/** A page of a sequence's raw files (`getSequenceRaw`). Null when the agent is unknown. */
export async function getSequenceRaw(db: Queryable, params: {
  agentId: string; seq: number; limit?: number; cursor?: string; opsLimit?: number; tenantId?: TenantScope;
}): Promise<SequenceRawPage | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const limit = checkLimit(params.limit, RAW_PAGE, RAW_PAGE_MAX);
  const opsLimit = checkLimit(params.opsLimit, 100, 1000);
  if (params.cursor !== undefined) decodeRawCursor(params.cursor, agent.id, params.seq); // a bad cursor is refused before any work
  const { ops } = await firstOpPages(db, agent.id, params.seq, opsLimit);
  return sequenceRawPage(db, { agentId: agent.id, seq: params.seq, ops, opsLimit, limit, cursor: params.cursor });
}

export async function sequenceAt(db: Queryable, params: { agentId: string; time: Date; tenantId?: TenantScope }): Promise<{ sequence: number; synced_at: string } | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  return first(db, `SELECT seq AS sequence, created_at AS synced_at FROM ledger_entries
    WHERE agent_id = $1 AND created_at <= $2 ORDER BY seq DESC, kind COLLATE "C" DESC LIMIT 1`, [agent.id, params.time.toISOString()]);
}
