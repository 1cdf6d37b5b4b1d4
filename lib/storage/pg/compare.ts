/**
 * The comparison of two sequences (lib/history/queries/compare.ts) on PostgreSQL: the same rows —
 * per record touched in (from, to] its live version at each end, the moves between them, per path
 * its raw version at each end — folded by the same pure code (`linkMemories`, compare-result.ts).
 * Correlated `LIMIT 1` subqueries become `LEFT JOIN LATERAL`; a record's key is read from its JSON
 * in JS (json-path.ts).
 */
import type { TenantScope } from '@/lib/history/queries/common';
import { linkMemories, type MemoryStateRow, type MoveEdge } from '@/lib/history/queries/compare-chains';
import {
  assembleComparison, checkRange, classifyFiles, compareLimit, compareMemoryOf, pageVersionIds,
  type CompareMemory, type CompareVersionRow, type FileStateRow, type WorkspaceComparison,
} from '@/lib/history/queries/compare-result';
import { findAgent } from './agents';
import { parsedJson, stringAt } from './json-path';
import { rows, type Queryable } from './sql';

/** Per record with a version in (from, to] or moved away in it: its version live at each end ($2 = from, $3 = to). */
async function memoryStates(db: Queryable, agentId: string, from: number, to: number): Promise<MemoryStateRow[]> {
  const side = (at: string, alias: string) => `LEFT JOIN LATERAL (SELECT w.* FROM record_versions w
      WHERE w.agent_id = $1 AND w.record_id = ids.record_id AND w.seq <= ${at} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) ${alias} ON true`;
  // A version is live unless it is a delete or a move away (to another record) follows it by `at`.
  const live = (a: string, at: string) => `CASE WHEN ${a}.id IS NULL OR ${a}.op = 'delete' THEN NULL
      WHEN EXISTS (SELECT 1 FROM record_versions m WHERE m.agent_id = ${a}.agent_id AND m.moved_from = ${a}.record_id
        AND m.seq <= ${at} AND (m.seq > ${a}.seq OR (m.seq = ${a}.seq AND m.entry_kind > ${a}.entry_kind))) THEN NULL
      ELSE ${a}.id END`;
  // Everything but the text, compared only with the same backend's other end.
  const meta = (v: string) => `json_build_array(${v}.origin_file, ${v}.heading, ${v}.memory_type, ${v}.namespace, ${v}.status, ${v}.tags)::text`;
  return rows<MemoryStateRow>(db, `
    WITH ids(record_id) AS (
      SELECT record_id FROM record_versions WHERE agent_id = $1 AND seq > $2 AND seq <= $3
      UNION SELECT moved_from FROM record_versions WHERE agent_id = $1 AND seq > $2 AND seq <= $3 AND moved_from IS NOT NULL)
    SELECT ids.record_id, ${live('f', '$2')} AS from_id, ${live('t', '$3')} AS to_id,
      f.content_sha256 AS from_sha, t.content_sha256 AS to_sha, ${meta('f')} AS from_meta, ${meta('t')} AS to_meta,
      f.origin_file AS from_file, f.heading AS from_heading, t.origin_file AS to_file, t.heading AS to_heading
    FROM ids ${side('$2', 'f')} ${side('$3', 't')} ORDER BY ids.record_id COLLATE "C"`, [agentId, from, to]);
}

async function moveEdges(db: Queryable, agentId: string, from: number, to: number): Promise<MoveEdge[]> {
  return rows<MoveEdge>(db, `
    SELECT moved_from AS source, record_id AS target, seq, entry_kind FROM record_versions
    WHERE agent_id = $1 AND seq > $2 AND seq <= $3 AND op = 'move' ORDER BY seq, entry_kind COLLATE "C", record_id COLLATE "C"`,
  [agentId, from, to]);
}

/** The versions with the given row ids, by id. */
async function versionsById(db: Queryable, ids: number[]): Promise<Map<number, CompareMemory>> {
  const out = new Map<number, CompareMemory>();
  if (ids.length === 0) return out;
  const found = await rows<Omit<CompareVersionRow, 'key'> & { record_json: string }>(db, `
    SELECT id, record_id, seq, content, origin_file, heading, memory_type, namespace, status, tags, record_json
    FROM record_versions WHERE id = ANY($1::bigint[])`, [ids]);
  for (const { record_json, ...row } of found) {
    const key = row.heading === null ? stringAt(parsedJson(record_json), ['raw_source_format', 'key']) : null;
    out.set(row.id, compareMemoryOf({ ...row, key }));
  }
  return out;
}

/** Per path with a version in (from, to]: its newest raw version at each end. */
async function fileStates(db: Queryable, agentId: string, from: number, to: number): Promise<FileStateRow[]> {
  const side = (at: string, alias: string) => `LEFT JOIN LATERAL (SELECT w.sha256, w.size, w.seq, w.deleted FROM raw_file_versions w
      WHERE w.agent_id = $1 AND w.path = paths.path AND w.seq <= ${at} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) ${alias} ON true`;
  type Row = { path: string; f_sha: string | null; f_size: number; f_seq: number | null; f_deleted: number; t_sha: string | null; t_size: number; t_seq: number | null; t_deleted: number };
  const found = await rows<Row>(db, `
    WITH paths AS (SELECT DISTINCT path FROM raw_file_versions WHERE agent_id = $1 AND seq > $2 AND seq <= $3)
    SELECT paths.path, f.sha256 AS f_sha, f.size AS f_size, f.seq AS f_seq, f.deleted AS f_deleted,
      t.sha256 AS t_sha, t.size AS t_size, t.seq AS t_seq, t.deleted AS t_deleted
    FROM paths ${side('$2', 'f')} ${side('$3', 't')}`, [agentId, from, to]);
  return found.map((r) => ({
    path: r.path,
    from: r.f_seq === null ? null : { sha256: r.f_sha, size: r.f_size, seq: r.f_seq, deleted: r.f_deleted },
    to: r.t_seq === null ? null : { sha256: r.t_sha, size: r.t_size, seq: r.t_seq, deleted: r.t_deleted },
  }));
}

export async function compareWorkspace(db: Queryable, params: { agentId: string; from: number; to: number; limit?: number; tenantId?: TenantScope }):
  Promise<WorkspaceComparison | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { from, to } = params;
  checkRange(agent.latest_sequence, agent.name, from, to);
  const limit = compareLimit(params.limit);
  const [states, edges, fileRows] = await Promise.all([
    memoryStates(db, agent.id, from, to), moveEdges(db, agent.id, from, to), fileStates(db, agent.id, from, to),
  ]);
  const linked = linkMemories(states, edges, limit);
  const versions = await versionsById(db, pageVersionIds(linked.page));
  return assembleComparison({ agentId: agent.id, from, to, limit, linked, files: classifyFiles(fileRows), versions });
}
