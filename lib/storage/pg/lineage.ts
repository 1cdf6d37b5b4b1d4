/**
 * One memory's lineage (lib/history/queries/lineage.ts) on PostgreSQL: the same chain walk, rows
 * and ordering; `json_each(ids)` becomes `= ANY($n::text[])`.
 */
import type { JsonObject } from '@/lib/core/json';
import { parseTags, type TenantScope } from '@/lib/history/queries/common';
import type { LineageLink, LineageVersion, RecordLineage } from '@/lib/history/queries/lineage';
import { findAgent } from './agents';
import { first, rows, type Queryable } from './sql';

const MAX_CHAIN = 1000;

type VersionRow = Omit<LineageVersion, 'tags' | 'record'> & { tags: string; record_json: string; moved_from: string | null };
type RecordRowLite = { record_id: string; first_seq: number; born_at: string; last_seq: number; last_changed_at: string; deleted_seq: number | null };

async function chainIds(db: Queryable, agentId: string, recordId: string): Promise<Set<string>> {
  const ids = new Set([recordId]);
  const queue = [recordId];
  while (queue.length > 0 && ids.size < MAX_CHAIN) {
    const id = queue.shift()!;
    const linked = await rows<{ id: string }>(db, `
      SELECT moved_from AS id FROM record_versions WHERE agent_id = $1 AND record_id = $2 AND moved_from IS NOT NULL
      UNION SELECT record_id AS id FROM record_versions WHERE agent_id = $1 AND moved_from = $2`, [agentId, id]);
    // UNION's order is the engine's own: take the links in one fixed order, as the result must not depend on it.
    for (const { id: next } of linked.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      if (ids.has(next)) continue;
      ids.add(next);
      queue.push(next);
    }
  }
  return ids;
}

async function link(db: Queryable, agentId: string, recordId: string, seq: number): Promise<LineageLink | null> {
  return first<LineageLink>(db, `
    SELECT r.agent_id, r.record_id, (SELECT w.origin_file FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS origin_file, $3::int AS seq
    FROM records r WHERE r.agent_id = $1 AND r.record_id = $2`, [agentId, recordId, seq]);
}

export async function getRecordLineage(db: Queryable, params: { agentId: string; recordId: string; tenantId?: TenantScope }): Promise<RecordLineage | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const recordId = params.recordId.toLowerCase();
  if (!(await first(db, 'SELECT 1 AS n FROM records WHERE agent_id = $1 AND record_id = $2', [agent.id, recordId]))) return null;
  const ids = [...(await chainIds(db, agent.id, recordId))];
  const records = await rows<RecordRowLite>(db, `
    SELECT record_id, first_seq, born_at, last_seq, last_changed_at, deleted_seq FROM records
    WHERE agent_id = $1 AND record_id = ANY($2::text[])`, [agent.id, ids]);
  records.sort((a, b) => a.first_seq - b.first_seq || (a.record_id < b.record_id ? -1 : 1));
  const chain = records.map((r) => r.record_id);
  const place = new Map(chain.map((id, i) => [id, i]));
  const found = await rows<VersionRow>(db, `
    SELECT seq, entry_kind, op, synced_at, record_id, content, content_sha256, memory_type, namespace, status, origin_file, heading, tags,
      record_json, moved_from
    FROM record_versions WHERE agent_id = $1 AND record_id = ANY($2::text[])`, [agent.id, ids]);
  found.sort((a, b) => a.seq - b.seq || (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0)
    || place.get(a.record_id)! - place.get(b.record_id)!);
  const lastFile = new Map<string, string | null>();
  const versions = found.map(({ record_json, moved_from, tags, ...v }): LineageVersion => {
    const version: LineageVersion = { ...v, tags: parseTags(tags), record: JSON.parse(record_json) as JsonObject };
    if (v.op === 'move' && moved_from !== null) {
      Object.assign(version, { from_file: lastFile.get(moved_from) ?? null, to_file: v.origin_file, from_record_id: moved_from, to_record_id: v.record_id });
    }
    lastFile.set(v.record_id, v.origin_file);
    return version;
  });
  const head = records[records.length - 1]!;
  const current = found.filter((r) => r.record_id === head.record_id).at(-1)!;
  const born = records[0]!;
  const ownMoveIn = found.find((r) => r.record_id === recordId && r.moved_from !== null);
  const movedTo = await rows<LineageLink>(db, `
    SELECT agent_id, record_id, origin_file, seq FROM record_versions
    WHERE agent_id = $1 AND moved_from = $2 ORDER BY seq, entry_kind COLLATE "C", record_id COLLATE "C"`, [agent.id, recordId]);
  return {
    record: {
      agent_id: agent.id, record_id: head.record_id, memory_type: current.memory_type, namespace: current.namespace,
      status: current.status, origin_file: current.origin_file, heading: current.heading, tags: parseTags(current.tags),
      content: current.content, born_seq: born.first_seq, born_at: born.born_at, born_file: found[0]?.origin_file ?? null,
      last_changed_seq: Math.max(...records.map((r) => r.last_seq)), last_changed_at: records.map((r) => r.last_changed_at).sort().at(-1)!,
      deleted_seq: head.deleted_seq,
    },
    chain,
    versions,
    moved_from: ownMoveIn?.moved_from ? await link(db, agent.id, ownMoveIn.moved_from, ownMoveIn.seq) : null,
    moved_to: movedTo,
  };
}
