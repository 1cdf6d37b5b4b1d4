/**
 * An agent's timeline, one sequence's detail and the sequence in force at a time
 * (lib/history/queries/sequences.ts) on PostgreSQL, with the same rows and order. A sequence the caller
 * gives is compared as `bigint`: SQLite compares any integer with a column, PostgreSQL refuses one past int4.
 */
import type { EntryKind } from '@/db/schema';
import { clampLimit, type TenantScope } from '@/lib/history/queries/common';
import type { SequenceDetail, SequenceItem, SequenceOp, SequenceRawChange } from '@/lib/history/queries/sequences';
import { findAgent } from './agents';
import { first, rows, type Queryable } from './sql';
import { MOVED_FROM_FILE } from './changes';

export async function getSequences(db: Queryable, params: { agentId: string; before?: number; limit?: number; tenantId?: TenantScope }):
  Promise<{ items: SequenceItem[]; next_before: number | null } | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const limit = clampLimit(params.limit, 50, 500);
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

export async function getSequence(db: Queryable, params: { agentId: string; seq: number; tenantId?: TenantScope }): Promise<SequenceDetail | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const entries = await rows<{ kind: EntryKind; synced_at: string; size_bytes: number }>(db, `
    SELECT kind, created_at AS synced_at, size_bytes FROM ledger_entries WHERE agent_id = $1 AND seq = $2::bigint ORDER BY kind COLLATE "C"`,
  [agent.id, params.seq]);
  const last = entries[entries.length - 1];
  if (!last) return null;
  const ops = await rows<SequenceOp>(db, `
    SELECT v.op, v.record_id, v.origin_file, v.heading, v.memory_type, v.namespace, v.content, v.moved_from, v.entry_kind,
      CASE WHEN v.op = 'create' THEN NULL ELSE (
        SELECT p.content FROM record_versions p
        WHERE p.agent_id = v.agent_id AND p.record_id = coalesce(v.moved_from, v.record_id)
          AND (p.seq < v.seq OR (p.seq = v.seq AND p.entry_kind < v.entry_kind))
        ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END AS previous_content,
      ${MOVED_FROM_FILE} AS from_file
    FROM record_versions v WHERE v.agent_id = $1 AND v.seq = $2::bigint ORDER BY v.entry_kind COLLATE "C", v.id`, [agent.id, params.seq]);
  const rawRows = await rows<{ path: string; deleted: number; size: number; entry_kind: EntryKind; prev_deleted: number | null }>(db, `
    SELECT f.path, f.deleted, f.size, f.entry_kind, (
      SELECT p.deleted FROM raw_file_versions p
      WHERE p.agent_id = f.agent_id AND p.path = f.path AND (p.seq < f.seq OR (p.seq = f.seq AND p.entry_kind < f.entry_kind))
      ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS prev_deleted
    FROM raw_file_versions f WHERE f.agent_id = $1 AND f.seq = $2::bigint ORDER BY f.entry_kind COLLATE "C", f.path COLLATE "C"`, [agent.id, params.seq]);
  const raw = rawRows.map((r): SequenceRawChange => ({
    path: r.path,
    change: r.deleted ? 'deleted' : r.prev_deleted === null || r.prev_deleted === 1 ? 'added' : 'modified',
    size: r.size,
    record_ids: ops.filter((o) => (o.origin_file === r.path || o.from_file === r.path) && o.entry_kind === r.entry_kind).map((o) => o.record_id),
    entry_kind: r.entry_kind,
  }));
  return { seq: params.seq, kind: last.kind, synced_at: last.synced_at, entries, ops, raw };
}

export async function sequenceAt(db: Queryable, params: { agentId: string; time: Date; tenantId?: TenantScope }): Promise<{ sequence: number; synced_at: string } | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  return first(db, `SELECT seq AS sequence, created_at AS synced_at FROM ledger_entries
    WHERE agent_id = $1 AND created_at <= $2 ORDER BY seq DESC, kind COLLATE "C" DESC LIMIT 1`, [agent.id, params.time.toISOString()]);
}
