/**
 * The records live at a sequence (lib/history/queries/records.ts) on PostgreSQL: the same rule
 * (per record its latest version ≤ at, unless a delete or moved away after it), filters, facets,
 * order and cursor. `json_each(tags)` becomes `jsonb_array_elements_text(tags::jsonb)`; text
 * order is code-point order (`COLLATE "C"`); facets are ordered here, as SQLite orders them (a NULL
 * value first).
 */
import { compareBinary } from '@/lib/history/compare-binary';
import { assertSequence, clampLimit, decodeCursor, encodeCursor, parseTags, tierOf, type TenantScope } from '@/lib/history/queries/common';
import type { FacetCount, RecordAtItem, RecordFilters, RecordsAtResult } from '@/lib/history/queries/records';
import { findAgent } from './agents';
import { first, Params, rows, type Queryable } from './sql';

function liveAt(p: Params, agentId: string, at: number): string {
  const a = p.add(agentId);
  const n = p.add(at);
  return `
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq,
      v.synced_at, v.record_json
    FROM records r CROSS JOIN LATERAL (
      SELECT w.* FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id AND w.seq <= ${n}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) v
    WHERE r.agent_id = ${a} AND r.first_seq <= ${n} AND v.op <> 'delete'
      AND NOT EXISTS (SELECT 1 FROM record_versions m
        WHERE m.agent_id = r.agent_id AND m.moved_from = r.record_id AND m.seq <= ${n}
          AND (m.seq > v.seq OR (m.seq = v.seq AND m.entry_kind > v.entry_kind)))`;
}

function filterSql(p: Params, f: RecordFilters): string {
  const parts: string[] = [];
  if (f.memory_type !== undefined) parts.push(`AND memory_type = ${p.add(f.memory_type)}`);
  if (f.namespace !== undefined) parts.push(`AND namespace = ${p.add(f.namespace)}`);
  if (f.file !== undefined) parts.push(`AND origin_file = ${p.add(f.file)}`);
  if (f.status !== undefined) parts.push(`AND status = ${p.add(f.status)}`);
  if (f.tag !== undefined) parts.push(`AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(tags::jsonb) t WHERE t = ${p.add(f.tag)})`);
  if (f.tier !== undefined) parts.push(`AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(tags::jsonb) t WHERE t = ${p.add(`tier:${f.tier}`)})`);
  return parts.join(' ');
}

const isCursor = (v: unknown): v is [string, string] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';

/** `raw_source_format.key` of a record's JSON when it is a string (json_extract's answer), else null. */
function keyOf(recordJson: string): string | null {
  try {
    const value = JSON.parse(recordJson) as { raw_source_format?: { key?: unknown } };
    const key = value?.raw_source_format?.key;
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

const EMPTY_FACETS = (): RecordsAtResult['facets'] => ({ memory_type: [], namespace: [], status: [], file: [], tier: [] });

export async function getRecordsAt(db: Queryable, params: { agentId: string; at?: number; limit?: number; cursor?: string; tenantId?: TenantScope } & RecordFilters):
  Promise<RecordsAtResult | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  const at = params.at ?? agent.latest_sequence ?? 0;
  if (agent.latest_sequence === null) return { at, total: 0, items: [], next_cursor: null, facets: EMPTY_FACETS() };
  assertSequence(agent, at);
  const limit = clampLimit(params.limit, 100, 1000);
  const fp = new Params();
  const facetRows = await rows<{ dim: string; value: string | null; count: number }>(db, `
    WITH live AS MATERIALIZED (${liveAt(fp, agent.id, at)})
    SELECT 'memory_type' AS dim, memory_type AS value, count(*) AS count FROM live GROUP BY 2
    UNION ALL SELECT 'namespace', namespace, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'status', status, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'file', origin_file, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'tier', substr(t, 6), count(*) FROM live, jsonb_array_elements_text(live.tags::jsonb) t WHERE t LIKE 'tier:%' GROUP BY 2`, fp);
  facetRows.sort((a, b) => compareBinary(a.dim, b.dim) || b.count - a.count
    || (a.value === b.value ? 0 : a.value === null ? -1 : b.value === null ? 1 : compareBinary(a.value, b.value)));
  const facets = EMPTY_FACETS();
  for (const row of facetRows) facets[row.dim as keyof RecordsAtResult['facets']].push({ value: row.value, count: row.count } satisfies FacetCount);
  const tp = new Params();
  const totalSql = `WITH live AS (${liveAt(tp, agent.id, at)}) SELECT count(*) AS n FROM live WHERE 1 = 1 ${filterSql(tp, params)}`;
  const total = (await first<{ n: number }>(db, totalSql, tp))?.n ?? 0;
  const pp = new Params();
  const live = liveAt(pp, agent.id, at);
  const filters = filterSql(pp, params);
  let after = '';
  if (params.cursor !== undefined) {
    const [file, id] = decodeCursor(params.cursor, isCursor);
    after = `AND (coalesce(origin_file, '') COLLATE "C", record_id COLLATE "C") > (${pp.add(file)}, ${pp.add(id)})`;
  }
  const found = await rows<Omit<RecordAtItem, 'tags' | 'tier' | 'key'> & { tags: string; version_id: number; record_json: string }>(db, `
    WITH live AS (${live}) SELECT * FROM live WHERE 1 = 1 ${filters} ${after}
    ORDER BY coalesce(origin_file, '') COLLATE "C", record_id COLLATE "C" LIMIT ${pp.add(limit + 1)}`, pp);
  const page = found.slice(0, limit).map(({ version_id: _v, record_json, ...r }) => {
    const tags = parseTags(r.tags);
    return { ...r, key: r.heading === null ? keyOf(record_json) : null, tags, tier: tierOf(tags) };
  });
  const last = page[page.length - 1];
  return {
    at, total, items: page,
    next_cursor: found.length > limit && last ? encodeCursor([last.origin_file ?? '', last.record_id]) : null,
    facets,
  };
}
