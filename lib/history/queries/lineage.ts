/**
 * One memory's lineage: the chain of record ids it had across its moves (each move one version of
 * the record it moved to, `moved_from` = the record it left), and every version of every record of
 * the chain in sequence order. Asked for any id of the chain, the answer is the same.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { EntryKind, RecordOp } from '@/db/schema';
import type { JsonObject } from '@/lib/core/json';
import { LATEST_VERSION_JOIN } from '../statements';
import { checkLimit, findAgent, parseTags, type TenantScope } from './common';
import { allRows, firstRow } from './prepared';
import { chainVersionCount, chainVersions, versionPage, type VersionOrder } from './lineage-versions';

export interface LineageVersion {
  seq: number;
  entry_kind: EntryKind;
  op: RecordOp;
  synced_at: string;
  /** The record of the chain this version belongs to (for a move: the record moved to). */
  record_id: string;
  content: string;
  content_sha256: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  heading: string | null;
  tags: string[];
  record: JsonObject;
  /** Set on moves only. */
  from_file?: string | null;
  to_file?: string | null;
  from_record_id?: string;
  to_record_id?: string;
}

export interface LineageLink {
  agent_id: string;
  record_id: string;
  origin_file: string | null;
  seq: number;
}

export interface RecordLineage {
  /** The chain's latest record (the one the memory lives as now, or lived as last), and where the memory was born. */
  record: {
    agent_id: string; record_id: string; memory_type: string; namespace: string; status: string;
    origin_file: string | null; heading: string | null; tags: string[]; content: string;
    born_seq: number; born_at: string; born_file: string | null; last_changed_seq: number; last_changed_at: string; deleted_seq: number | null;
  };
  /** The record ids of the chain, in the order the memory had them. */
  chain: string[];
  /** Every version in sequence order; with `limit`, one page of them in `order` (see `next_cursor`). */
  versions: LineageVersion[];
  /** How many versions the chain has in all. */
  version_count: number;
  /** The chain's moves (each one version), oldest first, whatever page `versions` is. */
  moves: LineageVersion[];
  /** With `limit`: the version before the page's oldest (its diff base), and the next page's cursor. */
  before: LineageVersion | null;
  next_cursor: string | null;
  /** The asked record's own provenance: the record it was moved from, and where it moved to. */
  moved_from: LineageLink | null;
  moved_to: LineageLink[];
}

/** Chains longer than this are cut (a guard: a memory is moved a few times in its life). */
const MAX_CHAIN = 1000;

type RecordRowLite = {
  record_id: string; first_seq: number; born_at: string; last_seq: number; last_changed_at: string; deleted_seq: number | null;
};

/**
 * The ids linked to `recordId` by moves, either way: its own versions' `moved_from` (through the key
 * index: `+moved_from` keeps SQLite from scanning every move of the agent in the partial index)
 * and the versions moved from it (through the partial index on (agent_id, moved_from)).
 */
function chainIds(db: LineageDb['db'], agentId: string, recordId: string): Set<string> {
  const ids = new Set([recordId]);
  const queue = [recordId];
  while (queue.length > 0 && ids.size < MAX_CHAIN) {
    const id = queue.shift()!;
    const linked = allRows<{ id: string }>(db, sql`
      SELECT moved_from AS id FROM record_versions WHERE agent_id = ${agentId} AND record_id = ${id} AND +moved_from IS NOT NULL
      UNION SELECT record_id AS id FROM record_versions WHERE agent_id = ${agentId} AND moved_from = ${id}`);
    for (const { id: next } of linked) {
      if (ids.has(next)) continue;
      ids.add(next);
      queue.push(next);
    }
  }
  return ids;
}

function link(db: LineageDb['db'], agentId: string, recordId: string, seq: number): LineageLink | null {
  return firstRow<LineageLink>(db, sql`
    SELECT r.agent_id, r.record_id, v.origin_file, ${seq} AS seq FROM records r ${sql.raw(LATEST_VERSION_JOIN)}
    WHERE r.agent_id = ${agentId} AND r.record_id = ${recordId}`) ?? null;
}

/**
 * The whole chain's lineage, asked by any of its record ids. Without `limit`, every version in
 * sequence order; with it, one keyset page in `order` (default newest first) after `cursor`.
 * Null when the agent or the record is unknown.
 */
export function getRecordLineage(params: {
  db: LineageDb; agentId: string; recordId: string; tenantId?: TenantScope; limit?: number; cursor?: string; order?: VersionOrder;
}): RecordLineage | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { db } = params.db;
  const recordId = params.recordId.toLowerCase();
  const asked = firstRow<{ n: number }>(db, sql`SELECT 1 AS n FROM records WHERE agent_id = ${agent.id} AND record_id = ${recordId}`);
  if (!asked) return null;
  const ids = [...chainIds(db, agent.id, recordId)];
  const records = allRows<RecordRowLite>(db, sql`
    SELECT record_id, first_seq, born_at, last_seq, last_changed_at, deleted_seq FROM records
    WHERE agent_id = ${agent.id} AND record_id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  records.sort((a, b) => a.first_seq - b.first_seq || (a.record_id < b.record_id ? -1 : 1));
  const chain = records.map((r) => r.record_id);
  const page = params.limit === undefined && params.cursor === undefined
    ? { versions: chainVersions(db, agent.id, chain, 'oldest', Number.MAX_SAFE_INTEGER), before: null, next_cursor: null }
    : versionPage(db, agent.id, chain, params.order ?? 'newest', checkLimit(params.limit, 50, 500), params.cursor);
  const head = records[records.length - 1]!;
  const born = records[0]!;
  const current = chainVersions(db, agent.id, [head.record_id], 'newest', 1)[0]!;
  const first = chainVersions(db, agent.id, [born.record_id], 'oldest', 1)[0];
  const ownMoveIn = firstRow<{ moved_from: string; seq: number }>(db, sql`
    SELECT moved_from, seq FROM record_versions WHERE agent_id = ${agent.id} AND record_id = ${recordId} AND +moved_from IS NOT NULL
    ORDER BY seq LIMIT 1`);
  const moved_to = allRows<LineageLink>(db, sql`
    SELECT agent_id, record_id, origin_file, seq FROM record_versions
    WHERE agent_id = ${agent.id} AND moved_from = ${recordId} ORDER BY +seq, entry_kind, record_id`);
  return {
    record: {
      agent_id: agent.id, record_id: head.record_id, memory_type: current.memory_type, namespace: current.namespace,
      status: current.status, origin_file: current.origin_file, heading: current.heading, tags: current.tags,
      content: current.content, born_seq: born.first_seq, born_at: born.born_at, born_file: first?.origin_file ?? null,
      last_changed_seq: Math.max(...records.map((r) => r.last_seq)), last_changed_at: records.map((r) => r.last_changed_at).sort().at(-1)!,
      deleted_seq: head.deleted_seq,
    },
    chain,
    ...page,
    version_count: chainVersionCount(db, agent.id, chain),
    moves: chainVersions(db, agent.id, chain.slice(1), 'oldest', MAX_CHAIN, undefined, sql`AND v.op = 'move'`),
    moved_from: ownMoveIn ? link(db, agent.id, ownMoveIn.moved_from, ownMoveIn.seq) : null,
    moved_to,
  };
}
