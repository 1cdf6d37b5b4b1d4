/**
 * The net change of an agent's workspace from sequence `from` to sequence `to`, read from the index:
 * only the records and paths with a version in (from, to] are looked at (the (agent_id, seq)
 * indexes find them), each one's state at `from` and at `to` read once (compare-states.ts), and moves link
 * the records of one memory, so a memory moved (and then edited) is one `moved` entry, not a
 * delete and a create. Contents are read only for the entries returned (at most `limit` per kind).
 * The engine-free parts (range check, files' classification, the answer) are compare-result.ts's,
 * shared with the PostgreSQL verb (lib/storage/pg/compare.ts).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { findAgent, type TenantScope } from './common';
import { linkMemories } from './compare-chains';
import {
  assembleComparison, checkRange, classifyFiles, compareLimit, compareMemoryOf, pageVersionIds,
  type CompareMemory, type CompareVersionRow, type FileSide, type WorkspaceComparison,
} from './compare-result';
import { memoryStates, moveEdges } from './compare-states';
import { allRows } from './prepared';

export type { CompareFile, CompareMemory, WorkspaceComparison } from './compare-result';

/** The versions with the given row ids, by id. */
function versionsById(db: LineageDb['db'], ids: number[]): Map<number, CompareMemory> {
  const out = new Map<number, CompareMemory>();
  if (ids.length === 0) return out;
  const rows = allRows<CompareVersionRow>(db, sql`
    SELECT id, record_id, seq, content, origin_file, heading, memory_type, namespace, status, tags,
      CASE WHEN heading IS NULL AND json_valid(record_json) THEN json_extract(record_json, '$.raw_source_format.key') END AS key
    FROM record_versions WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  for (const row of rows) out.set(row.id, compareMemoryOf(row));
  return out;
}

/** Per path with a version in (from, to]: its state at `from` and at `to`. */
function fileStates(db: LineageDb['db'], agentId: string, from: number, to: number) {
  const rows = allRows<{ path: string; f: string | null; t: string | null }>(db, sql`
    WITH paths(path) AS (SELECT DISTINCT path FROM raw_file_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to})
    SELECT path,
      (SELECT json_object('sha256', w.sha256, 'size', w.size, 'seq', w.seq, 'deleted', w.deleted) FROM raw_file_versions w
        WHERE w.agent_id = ${agentId} AND w.path = paths.path AND w.seq <= ${from} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS f,
      (SELECT json_object('sha256', w.sha256, 'size', w.size, 'seq', w.seq, 'deleted', w.deleted) FROM raw_file_versions w
        WHERE w.agent_id = ${agentId} AND w.path = paths.path AND w.seq <= ${to} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS t
    FROM paths`);
  const side = (text: string | null): FileSide => (text === null ? null : (JSON.parse(text) as FileSide));
  return classifyFiles(rows.map((r) => ({ path: r.path, from: side(r.f), to: side(r.t) })));
}

/**
 * The net change from `from` to `to` (`from` ≤ `to`; equal ends compare to nothing). Null for an
 * unknown agent; `invalid_input` (400) for a bad range, `sequence_out_of_range` (404) past the latest.
 */
export function compareWorkspace(params: { db: LineageDb; agentId: string; from: number; to: number; limit?: number; tenantId?: TenantScope }):
  WorkspaceComparison | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { from, to } = params;
  checkRange(agent.latest_sequence, agent.name, from, to);
  const limit = compareLimit(params.limit);
  const { db } = params.db;
  const edges = moveEdges(db, agent.id, from, to);
  const { kinds, chained } = memoryStates(db, { agentId: agent.id, from, to, edges, limit });
  const linked = linkMemories(chained, edges, limit, kinds);
  const files = fileStates(db, agent.id, from, to);
  return assembleComparison({ agentId: agent.id, from, to, limit, linked, files, versions: versionsById(db, pageVersionIds(linked.page)) });
}
