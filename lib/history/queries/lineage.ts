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
import { findAgent, parseTags, type TenantScope } from './common';

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
  versions: LineageVersion[];
  /** The asked record's own provenance: the record it was moved from, and where it moved to. */
  moved_from: LineageLink | null;
  moved_to: LineageLink[];
}

/** Chains longer than this are cut (a guard: a memory is moved a few times in its life). */
const MAX_CHAIN = 1000;

type VersionRow = Omit<LineageVersion, 'tags' | 'record'> & { tags: string; record_json: string; moved_from: string | null };
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
    const linked = db.all<{ id: string }>(sql`
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
  return db.get<LineageLink | undefined>(sql`
    SELECT r.agent_id, r.record_id, v.origin_file, ${seq} AS seq FROM records r ${sql.raw(LATEST_VERSION_JOIN)}
    WHERE r.agent_id = ${agentId} AND r.record_id = ${recordId}`) ?? null;
}

/** The whole chain's lineage, asked by any of its record ids. Null when the agent or the record is unknown. */
export function getRecordLineage(params: { db: LineageDb; agentId: string; recordId: string; tenantId?: TenantScope }): RecordLineage | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { db } = params.db;
  const recordId = params.recordId.toLowerCase();
  const asked = db.get<{ n: number } | undefined>(sql`SELECT 1 AS n FROM records WHERE agent_id = ${agent.id} AND record_id = ${recordId}`);
  if (!asked) return null;
  const ids = [...chainIds(db, agent.id, recordId)];
  const idList = JSON.stringify(ids);
  const records = db.all<RecordRowLite>(sql`
    SELECT record_id, first_seq, born_at, last_seq, last_changed_at, deleted_seq FROM records
    WHERE agent_id = ${agent.id} AND record_id IN (SELECT value FROM json_each(${idList}))`);
  records.sort((a, b) => a.first_seq - b.first_seq || (a.record_id < b.record_id ? -1 : 1));
  const chain = records.map((r) => r.record_id);
  const place = new Map(chain.map((id, i) => [id, i]));
  const rows = db.all<VersionRow>(sql`
    SELECT seq, entry_kind, op, synced_at, record_id, content, content_sha256, memory_type, namespace, status, origin_file, heading, tags,
      record_json, moved_from
    FROM record_versions WHERE agent_id = ${agent.id} AND record_id IN (SELECT value FROM json_each(${idList}))`);
  rows.sort((a, b) => a.seq - b.seq || (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0)
    || place.get(a.record_id)! - place.get(b.record_id)!);
  const lastFile = new Map<string, string | null>();
  const versions = rows.map(({ record_json, moved_from, tags, ...v }): LineageVersion => {
    const version: LineageVersion = { ...v, tags: parseTags(tags), record: JSON.parse(record_json) as JsonObject };
    if (v.op === 'move' && moved_from !== null) {
      Object.assign(version, { from_file: lastFile.get(moved_from) ?? null, to_file: v.origin_file, from_record_id: moved_from, to_record_id: v.record_id });
    }
    lastFile.set(v.record_id, v.origin_file);
    return version;
  });
  const head = records[records.length - 1]!;
  const current = rows.filter((r) => r.record_id === head.record_id).at(-1)!;
  const born = records[0]!;
  const ownMoveIn = rows.find((r) => r.record_id === recordId && r.moved_from !== null);
  const moved_to = db.all<LineageLink>(sql`
    SELECT agent_id, record_id, origin_file, seq FROM record_versions
    WHERE agent_id = ${agent.id} AND moved_from = ${recordId} ORDER BY +seq, entry_kind, record_id`);
  return {
    record: {
      agent_id: agent.id, record_id: head.record_id, memory_type: current.memory_type, namespace: current.namespace,
      status: current.status, origin_file: current.origin_file, heading: current.heading, tags: parseTags(current.tags),
      content: current.content, born_seq: born.first_seq, born_at: born.born_at, born_file: rows[0]?.origin_file ?? null,
      last_changed_seq: Math.max(...records.map((r) => r.last_seq)), last_changed_at: records.map((r) => r.last_changed_at).sort().at(-1)!,
      deleted_seq: head.deleted_seq,
    },
    chain,
    versions,
    moved_from: ownMoveIn?.moved_from ? link(db, agent.id, ownMoveIn.moved_from, ownMoveIn.seq) : null,
    moved_to,
  };
}
