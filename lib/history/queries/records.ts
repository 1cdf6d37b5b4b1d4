import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { EntryKind, RecordOp } from '@/db/schema';
import type { JsonObject } from '@/lib/core/json';
import { LATEST_VERSION_JOIN } from '../statements';
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

/** The versions live at `at`: per record ever born by then, its latest version ≤ at, unless a delete. */
function liveAt(agentId: string, at: number): SQL {
  return sql`
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq, v.synced_at
    FROM records r JOIN record_versions v ON v.id = (
      SELECT w.id FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id AND w.seq <= ${at}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE r.agent_id = ${agentId} AND r.first_seq <= ${at} AND v.op <> 'delete'`;
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

export interface LineageVersion {
  seq: number;
  entry_kind: EntryKind;
  op: RecordOp;
  synced_at: string;
  content: string;
  content_sha256: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  heading: string | null;
  tags: string[];
  record: JsonObject;
}

export interface LineageLink {
  agent_id: string;
  record_id: string;
  origin_file: string | null;
  seq: number;
}

export interface RecordLineage {
  record: {
    agent_id: string; record_id: string; memory_type: string; namespace: string; status: string;
    origin_file: string | null; heading: string | null; tags: string[]; content: string;
    born_seq: number; born_at: string; last_changed_seq: number; last_changed_at: string; deleted_seq: number | null;
  };
  versions: LineageVersion[];
  moved_from: LineageLink | null;
  moved_to: LineageLink[];
}

/** Every version of one record, oldest first, with its provenance links. Null when unknown. */
export function getRecordLineage(params: { db: LineageDb; agentId: string; recordId: string; tenantId?: TenantScope }): RecordLineage | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { db } = params.db;
  const recordId = params.recordId.toLowerCase();
  const current = db.get<{
    record_id: string; memory_type: string; namespace: string; status: string; origin_file: string | null; heading: string | null;
    tags: string; content: string; first_seq: number; born_at: string; last_seq: number; last_changed_at: string; deleted_seq: number | null;
  } | undefined>(sql`
    SELECT r.record_id, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.content,
      r.first_seq, r.born_at, r.last_seq, r.last_changed_at, r.deleted_seq
    FROM records r ${sql.raw(LATEST_VERSION_JOIN)} WHERE r.agent_id = ${agent.id} AND r.record_id = ${recordId}`);
  if (!current) return null;
  const rows = db.all<Omit<LineageVersion, 'tags' | 'record'> & { tags: string; record_json: string; moved_from: string | null }>(sql`
    SELECT seq, entry_kind, op, synced_at, content, content_sha256, memory_type, namespace, status, origin_file, heading, tags, record_json, moved_from
    FROM record_versions WHERE agent_id = ${agent.id} AND record_id = ${recordId} ORDER BY seq, entry_kind`);
  const versions = rows.map(({ record_json, moved_from: _moved, tags, ...v }) => ({
    ...v, tags: parseTags(tags), record: JSON.parse(record_json) as JsonObject,
  }));
  const fromVersion = rows.find((r) => r.moved_from !== null);
  const moved_from = fromVersion?.moved_from
    ? db.get<LineageLink | undefined>(sql`
        SELECT r.agent_id, r.record_id, v.origin_file, ${fromVersion.seq} AS seq FROM records r ${sql.raw(LATEST_VERSION_JOIN)}
        WHERE r.agent_id = ${agent.id} AND r.record_id = ${fromVersion.moved_from}`) ?? null
    : null;
  // `+seq`: without it SQLite walks every version of the agent in (agent_id, seq) order to skip a
  // sort (about 50 ms on 35,000 versions) instead of seeking the few moved rows in the partial
  // index on (agent_id, moved_from).
  const moved_to = db.all<LineageLink>(sql`
    SELECT agent_id, record_id, origin_file, seq FROM record_versions
    WHERE agent_id = ${agent.id} AND moved_from = ${recordId} ORDER BY +seq, entry_kind, record_id`);
  return {
    record: {
      agent_id: agent.id, record_id: current.record_id, memory_type: current.memory_type, namespace: current.namespace,
      status: current.status, origin_file: current.origin_file, heading: current.heading, tags: parseTags(current.tags),
      content: current.content, born_seq: current.first_seq, born_at: current.born_at, last_changed_seq: current.last_seq,
      last_changed_at: current.last_changed_at, deleted_seq: current.deleted_seq,
    },
    versions, moved_from, moved_to,
  };
}
