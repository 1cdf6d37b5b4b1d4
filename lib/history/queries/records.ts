import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger';
import { facetsFromCounters, totalFromCounters, type StoredFacetRow } from './record-facets';
import {
  asciiLower, assertSequence, checkLimit, decodeCursor, encodeCursor, findAgent, parseTags, tierOf, type CursorList, type TenantScope,
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

export type FacetName = 'memory_type' | 'namespace' | 'status' | 'file' | 'tier';

export interface RecordsAtResult {
  at: number;
  /** How many records match the filters (first page only: null on a page asked with a cursor). */
  total: number | null;
  items: RecordAtItem[];
  next_cursor: string | null;
  /** Counts over every record live at `at` (unfiltered), for filter UIs (first page only, else null). */
  facets: Record<FacetName, FacetCount[]> | null;
}

/** The orders of the Memories list: by file (default), by heading, or last change first. */
export const RECORD_SORTS = ['file', 'heading', 'changed'] as const;
export type RecordSort = (typeof RECORD_SORTS)[number];


export interface RecordFilters {
  memory_type?: string;
  namespace?: string;
  file?: string;
  tag?: string;
  status?: string;
  tier?: string;
  /** Text the content, heading or file must contain (case-insensitive for ASCII letters). */
  q?: string;
}

/**
 * The list a records cursor pages (common.ts `CursorList`): the agent and every filter, values
 * exactly as given. The sequence is in the cursor's position (`readRecordsCursor`): the one its first
 * page answered at, asked or the latest then. The sort is in the position too, and said apart.
 */
export const recordsList = (agentId: string, p: RecordFilters): CursorList =>
  ['records', agentId, p.memory_type ?? null, p.namespace ?? null, p.file ?? null, p.tag ?? null, p.status ?? null, p.tier ?? null, p.q ?? null];

/** Where a records page goes on from: the sort, the last row's sort key and version id. */
export type SortCursor = [RecordSort, string | number, number];

/** A records cursor's position: where the list goes on, then the sequence the list is at. */
const isPosition = (v: unknown): v is [...SortCursor, number] =>
  Array.isArray(v) && v.length === 4 && (RECORD_SORTS as readonly unknown[]).includes(v[0]) && Number.isSafeInteger(v[2])
  && (v[0] === 'changed' ? Number.isSafeInteger(v[1]) : typeof v[1] === 'string') && Number.isSafeInteger(v[3]) && v[3] >= 0;

/** The cursor of the page after `last`, of the list at sequence `at` (both backends). */
export function recordsCursor(agentId: string, p: RecordFilters, at: number, last: SortCursor): string {
  return encodeCursor(recordsList(agentId, p), [...last, at]);
}

/**
 * A records cursor's place and the sequence its list is at: the one the first page answered at, so a
 * page asked without `at` after a sync has landed goes on at that sequence (the list the cursor
 * belongs to), and one asked with `at` equal to it is the same list. With another `at`, another sort,
 * agent or filter, the cursor is refused in words; both backends.
 */
export function readRecordsCursor(cursor: string, agentId: string, p: { at?: number; sort: RecordSort } & RecordFilters): { at: number; after: SortCursor } {
  const [sort, key, id, at] = decodeCursor(cursor, recordsList(agentId, p), isPosition);
  if (p.at !== undefined && p.at !== at) {
    throw new LedgerError('invalid_input', 'This paging cursor belongs to another search or list (another agent, sequence, filter or order); start again from the first page.');
  }
  if (sort !== p.sort) {
    throw new LedgerError('invalid_input', `The paging cursor belongs to the list sorted by ${sort}, not by ${p.sort}; start again from the first page.`);
  }
  return { at, after: [sort, key, id] };
}

/**
 * The versions live at `at`: per record ever born by then, its latest version ≤ at, unless a
 * delete, or unless the record moved away after it (a move's row is its successor's: a record
 * moved away has no row of its own at the move). The partial index on (agent_id, moved_from)
 * answers that check: `+m.seq` keeps SQLite off the (agent_id, seq) index, which walks every
 * version of the agent up to `at` per record (1.2 s instead of 60 ms for 1,000 records). With
 * `file`, only the versions live in that file.
 */
export function liveAt(agentId: string, at: number, file?: string): SQL {
  // In one file, only the records with a version in it by then are worked out: a record's version at
  // `at` is one of its versions up to `at`, so one in `file` has one there (the file-order index finds them).
  const inFile = file === undefined ? sql`` : sql`
      AND v.origin_file = ${file} AND r.record_id IN (SELECT f.record_id FROM record_versions f
        WHERE f.agent_id = ${agentId} AND coalesce(f.origin_file, '') = ${file} AND f.origin_file = ${file} AND f.seq <= ${at})`;
  return sql`
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq, v.synced_at
    FROM records r JOIN record_versions v ON v.id = (
      SELECT w.id FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id AND w.seq <= ${at}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE r.agent_id = ${agentId} AND r.first_seq <= ${at} AND v.op <> 'delete' ${inFile}
      AND NOT EXISTS (SELECT 1 FROM record_versions m
        WHERE m.agent_id = r.agent_id AND m.moved_from = r.record_id AND +m.seq <= ${at}
          AND (+m.seq > v.seq OR (+m.seq = v.seq AND m.entry_kind > v.entry_kind)))`;
}

/**
 * The versions live at an earlier sequence `at`, read from the ordering index on (as currentVersions
 * reads the latest): each version up to `at`, not a tombstone, that is its record's last row up to
 * `at` and whose record did not move away after it by then — liveAt's rule, asked of each version
 * the walk meets instead of worked out for every record first, so a page reads about a page of
 * index entries and the record's later versions it skips. `index` is the one that reads `order`
 * (INDEXED BY): the planner otherwise may take another and sort every version of the agent.
 */
function versionsAt(agentId: string, at: number, where: SQL, order: SQL, index: SQL, limit: number): SQL {
  return sql`
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq, v.synced_at
    FROM record_versions v INDEXED BY ${index}
    WHERE v.agent_id = ${agentId} AND v.seq <= ${at} AND v.op <> 'delete'
      AND NOT EXISTS (SELECT 1 FROM record_versions w WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id
        AND w.seq <= ${at} AND (w.seq > v.seq OR (w.seq = v.seq AND w.entry_kind > v.entry_kind)))
      AND NOT EXISTS (SELECT 1 FROM record_versions m
        WHERE m.agent_id = v.agent_id AND m.moved_from = v.record_id AND +m.seq <= ${at}
          AND (+m.seq > v.seq OR (+m.seq = v.seq AND m.entry_kind > v.entry_kind)))
      ${where}
    ORDER BY ${order} LIMIT ${limit}`;
}

/**
 * The versions live at the latest sequence, read from the ordering index on: each row of
 * record_versions in `order` that is its record's current version (`records.last_seq`, the later
 * entry kind) of a live record. CROSS JOIN keeps SQLite walking the version index in order, so a
 * page reads about a page of index entries (plus a record's older versions it skips).
 */
function currentVersions(agentId: string, where: SQL, order: SQL, limit: number): SQL {
  return sql`
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq, v.synced_at
    FROM record_versions v CROSS JOIN records r ON r.agent_id = v.agent_id AND r.record_id = v.record_id
    WHERE v.agent_id = ${agentId} AND r.last_seq = v.seq AND r.deleted_seq IS NULL
      AND NOT EXISTS (SELECT 1 FROM record_versions w
        WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id AND w.seq = v.seq AND w.entry_kind > v.entry_kind)
      ${where}
    ORDER BY ${order} LIMIT ${limit}`;
}

/** The index of record_versions that reads each sort's order (its key, then the rowid). */
const SORT_INDEX: Record<RecordSort, SQL> = {
  file: sql.raw('record_versions_file_order_idx'),
  heading: sql.raw('record_versions_heading_order_idx'),
  changed: sql.raw('record_versions_agent_seq_idx'),
};

/** Per sort: the ORDER BY over a version alias (each backed by an index ending in the rowid) and its keyset condition. */
function sortSql(sort: RecordSort, alias: string, id: string, cursor: SortCursor | undefined): { order: SQL; after: SQL } {
  const v = sql.raw(alias);
  const rowid = sql.raw(id);
  if (sort === 'changed') {
    return { order: sql`${v}.seq DESC, ${rowid} DESC`, after: cursor ? sql`AND (${v}.seq, ${rowid}) < (${cursor[1]}, ${cursor[2]})` : sql`` };
  }
  const key = sort === 'file' ? sql`coalesce(${v}.origin_file, '')` : sql`coalesce(${v}.heading, '')`;
  // The plain `key >=` bound lets SQLite start the index range at the cursor (the row value alone only filters).
  return { order: sql`${key}, ${rowid}`, after: cursor ? sql`AND ${key} >= ${cursor[1]} AND (${key}, ${rowid}) > (${cursor[1]}, ${cursor[2]})` : sql`` };
}

function filterSql(f: RecordFilters, alias = ''): SQL {
  const c = (name: string) => sql.raw(alias ? `${alias}.${name}` : name);
  const parts: SQL[] = [];
  if (f.memory_type !== undefined) parts.push(sql`AND ${c('memory_type')} = ${f.memory_type}`);
  if (f.namespace !== undefined) parts.push(sql`AND ${c('namespace')} = ${f.namespace}`);
  // The coalesce form too: the file-order index's expression, so a page of one file reads that file's range of it.
  if (f.file !== undefined) parts.push(sql`AND coalesce(${c('origin_file')}, '') = ${f.file} AND ${c('origin_file')} = ${f.file}`);
  if (f.status !== undefined) parts.push(sql`AND ${c('status')} = ${f.status}`);
  if (f.tag !== undefined) parts.push(sql`AND EXISTS (SELECT 1 FROM json_each(${c('tags')}) t WHERE t.value = ${f.tag})`);
  if (f.tier !== undefined) parts.push(sql`AND EXISTS (SELECT 1 FROM json_each(${c('tags')}) t WHERE t.value = ${`tier:${f.tier}`})`);
  if (f.q !== undefined) {
    // Lowered as lower() lowers the columns: ASCII only (`MÜLLER`.toLowerCase() is not in lower('MÜLLER')).
    const needle = asciiLower(f.q);
    parts.push(sql`AND (instr(lower(${c('content')}), ${needle}) > 0 OR instr(lower(coalesce(${c('heading')}, '')), ${needle}) > 0
      OR instr(lower(coalesce(${c('origin_file')}, '')), ${needle}) > 0)`);
  }
  return sql.join(parts, sql` `);
}

/**
 * The facets and total of a first page, from the counters the indexer keeps (record-facets.ts): at
 * the latest sequence the counters themselves, at an earlier one their changes per sequence summed
 * up to it. Only a total the counters cannot say (text, tag, several filters) is counted, over the
 * records live there.
 */
function firstPageCounts(lineageDb: LineageDb, agentId: string, at: number, latest: boolean, filters: RecordFilters):
  { facets: NonNullable<RecordsAtResult['facets']>; total: number } {
  const { db } = lineageDb;
  const counters = latest
    ? db.all<StoredFacetRow>(sql`SELECT facet, value, count FROM record_facets WHERE agent_id = ${agentId}`)
    : db.all<StoredFacetRow>(sql`SELECT facet, value, sum(change) AS count FROM record_facet_changes
        WHERE agent_id = ${agentId} AND seq <= ${at} GROUP BY facet, value HAVING count <> 0`);
  const count = () => {
    // In one file, only the records with a version there are worked out (liveAt's file pushdown).
    const kept = latest ? currentVersions(agentId, sql``, sql`v.id`, -1) : liveAt(agentId, at, filters.file);
    return db.get<{ n: number }>(sql`WITH live AS (${kept}) SELECT count(*) AS n FROM live WHERE 1 = 1 ${filterSql(filters)}`)?.n ?? 0;
  };
  return { facets: facetsFromCounters(counters), total: totalFromCounters(filters, counters) ?? count() };
}

/**
 * The records live at sequence `at` (default: latest), filtered, in `sort` order (file, heading or
 * last change first), keyset-paged by an opaque cursor; the first page carries the total and the
 * facet counts. A page is read from the ordering index (currentVersions at the latest sequence,
 * versionsAt at an earlier one). Null when the agent is unknown.
 */
export function getRecordsAt(params: {
  db: LineageDb; agentId: string; at?: number; limit?: number; cursor?: string; sort?: RecordSort; tenantId?: TenantScope;
} & RecordFilters): RecordsAtResult | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  if (agent.latest_sequence === null) {
    return { at: params.at ?? 0, total: 0, items: [], next_cursor: null, facets: { memory_type: [], namespace: [], status: [], file: [], tier: [] } };
  }
  const limit = checkLimit(params.limit, 100, 1000);
  const sort = params.sort ?? 'file';
  if (!RECORD_SORTS.includes(sort)) throw new LedgerError('invalid_input', `sort must be file, heading or changed, got "${String(sort)}"`);
  const read = params.cursor === undefined ? undefined : readRecordsCursor(params.cursor, agent.id, { ...params, sort });
  const cursor = read?.after;
  const at = read?.at ?? params.at ?? agent.latest_sequence;
  assertSequence(agent, at);
  const { db } = params.db;
  const latest = at === agent.latest_sequence;
  const first = cursor === undefined;
  let facets: RecordsAtResult['facets'] = null;
  let total: number | null = null;
  if (first) ({ facets, total } = firstPageCounts(params.db, agent.id, at, latest, params));
  type Row = Omit<RecordAtItem, 'tags' | 'tier' | 'key'> & { tags: string; version_id: number };
  const rows = latest
    ? (() => {
      const { order, after } = sortSql(sort, 'v', 'v.id', cursor);
      return db.all<Row>(currentVersions(agent.id, sql`${filterSql(params, 'v')} ${after}`, order, limit + 1));
    })()
    : (() => {
      const { order, after } = sortSql(sort, 'v', 'v.id', cursor);
      return db.all<Row>(versionsAt(agent.id, at, sql`${filterSql(params, 'v')} ${after}`, order, SORT_INDEX[sort], limit + 1));
    })();
  // Keys only for the page's records without a heading: one small lookup each, not a JSON parse per live record.
  // json_valid first: a record stored before ingest refused deep JSON would make json_extract throw.
  const keyOf = params.db.sqlite.prepare(`SELECT CASE WHEN json_valid(record_json) THEN json_extract(record_json, '$.raw_source_format.key') END
    FROM record_versions WHERE id = ?`).pluck();
  const shown = rows.slice(0, limit);
  const page = shown.map(({ version_id, ...r }) => {
    const tags = parseTags(r.tags);
    const key = r.heading === null ? keyOf.get(version_id) : null;
    return { ...r, key: typeof key === 'string' ? key : null, tags, tier: tierOf(tags) };
  });
  const last = shown[shown.length - 1];
  const lastKey = (r: Row) => (sort === 'changed' ? r.seq : sort === 'file' ? (r.origin_file ?? '') : (r.heading ?? ''));
  return {
    at, total, items: page,
    next_cursor: rows.length > limit && last ? recordsCursor(agent.id, params, at, [sort, lastKey(last), last.version_id]) : null,
    facets,
  };
}

export * from './lineage';
