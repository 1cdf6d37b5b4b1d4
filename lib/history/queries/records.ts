import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import {
  assertSequence, clampLimit, decodeCursor, encodeCursor, findAgent, parseTags, tierOf, type TenantScope,
} from './common';

export interface RecordAtItem {
  record_id: string;
  content: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  heading: string | null;
  /** What names a record without a heading (a ZeroClaw row's `raw_source_format.key`); null when it has a heading or no key. */
  key: string | null;
  tags: string[];
  tier: string | null;
  /** Sequence of the version live at `at`. */
  seq: number;
  synced_at: string;
}

export interface FacetCount {
  value: string | null;
  count: number;
}

export interface RecordsAtResult {
  at: number;
  total: number;
  items: RecordAtItem[];
  next_cursor: string | null;
  /** Counts over every record live at `at` (unfiltered), for filter UIs. */
  facets: Record<'memory_type' | 'namespace' | 'status' | 'file' | 'tier', FacetCount[]>;
}

export interface RecordFilters {
  memory_type?: string;
  namespace?: string;
  file?: string;
  tag?: string;
  status?: string;
  tier?: string;
}

/**
 * The versions live at `at`: per record ever born by then, its latest version ≤ at, unless a
 * delete, or unless the record moved away after it (a move's row is its successor's: a record
 * moved away has no row of its own at the move). The partial index on (agent_id, moved_from)
 * answers that check: `+m.seq` keeps SQLite off the (agent_id, seq) index, which walks every
 * version of the agent up to `at` per record (1.2 s instead of 60 ms for 1,000 records).
 */
export function liveAt(agentId: string, at: number): SQL {
  return sql`
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq, v.synced_at
    FROM records r JOIN record_versions v ON v.id = (
      SELECT w.id FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id AND w.seq <= ${at}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE r.agent_id = ${agentId} AND r.first_seq <= ${at} AND v.op <> 'delete'
      AND NOT EXISTS (SELECT 1 FROM record_versions m
        WHERE m.agent_id = r.agent_id AND m.moved_from = r.record_id AND +m.seq <= ${at}
          AND (+m.seq > v.seq OR (+m.seq = v.seq AND m.entry_kind > v.entry_kind)))`;
}

function filterSql(f: RecordFilters): SQL {
  const parts: SQL[] = [];
  if (f.memory_type !== undefined) parts.push(sql`AND memory_type = ${f.memory_type}`);
  if (f.namespace !== undefined) parts.push(sql`AND namespace = ${f.namespace}`);
  if (f.file !== undefined) parts.push(sql`AND origin_file = ${f.file}`);
  if (f.status !== undefined) parts.push(sql`AND status = ${f.status}`);
  if (f.tag !== undefined) parts.push(sql`AND EXISTS (SELECT 1 FROM json_each(tags) t WHERE t.value = ${f.tag})`);
  if (f.tier !== undefined) parts.push(sql`AND EXISTS (SELECT 1 FROM json_each(tags) t WHERE t.value = ${`tier:${f.tier}`})`);
  return sql.join(parts, sql` `);
}

const isCursor = (v: unknown): v is [string, string] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';

/**
 * The records live at sequence `at` (default: latest), filtered, ordered by file then id, paged by
 * an opaque cursor, with facet counts. Null when the agent is unknown.
 */
export function getRecordsAt(params: { db: LineageDb; agentId: string; at?: number; limit?: number; cursor?: string; tenantId?: TenantScope } & RecordFilters):
  RecordsAtResult | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const at = params.at ?? agent.latest_sequence ?? 0;
  if (agent.latest_sequence === null) {
    return { at, total: 0, items: [], next_cursor: null, facets: { memory_type: [], namespace: [], status: [], file: [], tier: [] } };
  }
  assertSequence(agent, at);
  const limit = clampLimit(params.limit, 100, 1000);
  const { db } = params.db;
  const live = liveAt(agent.id, at);
  const facetRows = db.all<{ dim: string; value: string | null; count: number }>(sql`
    WITH live AS MATERIALIZED (${live})
    SELECT 'memory_type' AS dim, memory_type AS value, count(*) AS count FROM live GROUP BY 2
    UNION ALL SELECT 'namespace', namespace, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'status', status, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'file', origin_file, count(*) FROM live GROUP BY 2
    UNION ALL SELECT 'tier', substr(t.value, 6), count(*) FROM live, json_each(live.tags) t WHERE t.value LIKE 'tier:%' GROUP BY 2
    ORDER BY 1, 3 DESC, 2`);
  const facets: RecordsAtResult['facets'] = { memory_type: [], namespace: [], status: [], file: [], tier: [] };
  for (const row of facetRows) facets[row.dim as keyof RecordsAtResult['facets']].push({ value: row.value, count: row.count });
  const filters = filterSql(params);
  const total = db.get<{ n: number }>(sql`WITH live AS (${live}) SELECT count(*) AS n FROM live WHERE 1 = 1 ${filters}`)?.n ?? 0;
  const after = params.cursor === undefined ? sql`` : (() => {
    const [file, id] = decodeCursor(params.cursor, isCursor);
    return sql`AND (coalesce(origin_file, ''), record_id) > (${file}, ${id})`;
  })();
  const rows = db.all<Omit<RecordAtItem, 'tags' | 'tier' | 'key'> & { tags: string; version_id: number }>(sql`
    WITH live AS (${live}) SELECT * FROM live WHERE 1 = 1 ${filters} ${after}
    ORDER BY coalesce(origin_file, ''), record_id LIMIT ${limit + 1}`);
  // Keys only for the page's records without a heading: one small lookup each, not a JSON parse per live record.
  // json_valid first: a record stored before ingest refused deep JSON would make json_extract throw.
  const keyOf = params.db.sqlite.prepare(`SELECT CASE WHEN json_valid(record_json) THEN json_extract(record_json, '$.raw_source_format.key') END
    FROM record_versions WHERE id = ?`).pluck();
  const page = rows.slice(0, limit).map(({ version_id, ...r }) => {
    const tags = parseTags(r.tags);
    const key = r.heading === null ? keyOf.get(version_id) : null;
    return { ...r, key: typeof key === 'string' ? key : null, tags, tier: tierOf(tags) };
  });
  const last = page[page.length - 1];
  return {
    at, total, items: page,
    next_cursor: rows.length > limit && last ? encodeCursor([last.origin_file ?? '', last.record_id]) : null,
    facets,
  };
}

export * from './lineage';
