/**
 * The records live at a sequence (lib/history/queries/records.ts) on PostgreSQL: the same rule
 * (per record its latest version ≤ at, unless a delete or moved away after it), filters, facets,
 * order and cursor. `json_each(tags)` becomes `jsonb_array_elements_text(tags::jsonb)`; text
 * order is code-point order (`COLLATE "C"`); facets come from the same counters (record-facets.ts).
 */
import { asciiLower as asciiLowerText, assertSequence, checkLimit, parseTags, tierOf, type TenantScope } from '@/lib/history/queries/common';
import {
  RECORD_SORTS, readRecordsCursor, recordsCursor, type RecordAtItem, type RecordFilters, type RecordSort, type RecordsAtResult, type SortCursor,
} from '@/lib/history/queries/records';
import { facetsFromCounters, totalFromCounters, type StoredFacetRow } from '@/lib/history/queries/record-facets';
import { LedgerError } from '@/lib/ledger/errors';
import { findAgent } from './agents';
import { first, Params, rows, type Queryable } from './sql';

/**
 * The versions live at `at` (records.ts `liveAt`), with their record JSON: per record its latest
 * version ≤ at, unless a delete or moved away after it. Also read by blame and the database records.
 */
export function liveAt(p: Params, agentId: string, at: number): string {
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

/**
 * The versions live at the latest sequence, in the sort's order (records.ts `currentVersions`): each
 * version that is its record's current one (`records.last_seq`, the later entry kind) of a live record.
 */
function currentVersions(p: Params, agentId: string, where: (alias: string) => string, order: string, limit?: number): string {
  const a = p.add(agentId);
  const w = where('v');
  return `
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq,
      v.synced_at, v.record_json
    FROM record_versions v JOIN records r ON r.agent_id = v.agent_id AND r.record_id = v.record_id
    WHERE v.agent_id = ${a} AND r.last_seq = v.seq AND r.deleted_seq IS NULL
      AND NOT EXISTS (SELECT 1 FROM record_versions w
        WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id AND w.seq = v.seq AND w.entry_kind > v.entry_kind)
      ${w}
    ${order ? `ORDER BY ${order}` : ''} ${limit === undefined ? '' : `LIMIT ${p.add(limit)}`}`;
}

/**
 * The versions live at an earlier sequence, in the sort's order (records.ts `versionsAt`): each version
 * up to `at`, not a tombstone, that is its record's last row up to `at` and whose record did not move
 * away after it by then.
 */
function versionsAt(p: Params, agentId: string, at: number, where: (alias: string) => string, order: string, limit: number): string {
  const a = p.add(agentId);
  const n = p.add(at);
  const w = where('v');
  return `
    SELECT v.id AS version_id, v.record_id, v.content, v.memory_type, v.namespace, v.status, v.origin_file, v.heading, v.tags, v.seq,
      v.synced_at, v.record_json
    FROM record_versions v
    WHERE v.agent_id = ${a} AND v.seq <= ${n} AND v.op <> 'delete'
      AND NOT EXISTS (SELECT 1 FROM record_versions w WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id
        AND w.seq <= ${n} AND (w.seq > v.seq OR (w.seq = v.seq AND w.entry_kind > v.entry_kind)))
      AND NOT EXISTS (SELECT 1 FROM record_versions m
        WHERE m.agent_id = v.agent_id AND m.moved_from = v.record_id AND m.seq <= ${n}
          AND (m.seq > v.seq OR (m.seq = v.seq AND m.entry_kind > v.entry_kind)))
      ${w}
    ORDER BY ${order} LIMIT ${p.add(limit)}`;
}


/** Per sort: the ORDER BY over a version alias and its keyset condition (records.ts `sortSql`), text in byte order. */
function sortSql(p: Params, sort: RecordSort, alias: string, id: string, cursor: SortCursor | undefined): { order: string; after: string } {
  if (sort === 'changed') {
    return { order: `${alias}.seq DESC, ${id} DESC`, after: cursor ? `AND (${alias}.seq, ${id}) < (${p.add(cursor[1])}::bigint, ${p.add(cursor[2])}::bigint)` : '' };
  }
  const key = `coalesce(${alias}.${sort === 'file' ? 'origin_file' : 'heading'}, '') COLLATE "C"`;
  return { order: `${key}, ${id}`, after: cursor ? `AND (${key}, ${id}) > (${p.add(cursor[1])}, ${p.add(cursor[2])}::bigint)` : '' };
}

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** SQLite's `lower()`: ASCII letters only, whatever the database's locale. */
const asciiLower = (expr: string): string => `translate(${expr}, '${ASCII_UPPER}', '${ASCII_UPPER.toLowerCase()}')`;

function filterSql(p: Params, f: RecordFilters, alias = ''): string {
  const c = (name: string) => (alias ? `${alias}.${name}` : name);
  const parts: string[] = [];
  if (f.memory_type !== undefined) parts.push(`AND ${c('memory_type')} = ${p.add(f.memory_type)}`);
  if (f.namespace !== undefined) parts.push(`AND ${c('namespace')} = ${p.add(f.namespace)}`);
  if (f.file !== undefined) {
    const file = p.add(f.file);
    parts.push(`AND (coalesce(${c('origin_file')}, '') COLLATE "C") = ${file} AND ${c('origin_file')} = ${file}`);
  }
  if (f.status !== undefined) parts.push(`AND ${c('status')} = ${p.add(f.status)}`);
  if (f.tag !== undefined) parts.push(`AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(${c('tags')}::jsonb) t WHERE t = ${p.add(f.tag)})`);
  if (f.tier !== undefined) parts.push(`AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(${c('tags')}::jsonb) t WHERE t = ${p.add(`tier:${f.tier}`)})`);
  if (f.q !== undefined) {
    const needle = p.add(asciiLowerText(f.q));
    parts.push(`AND (strpos(${asciiLower(c('content'))}, ${needle}) > 0 OR strpos(${asciiLower(`coalesce(${c('heading')}, '')`)}, ${needle}) > 0
      OR strpos(${asciiLower(`coalesce(${c('origin_file')}, '')`)}, ${needle}) > 0)`);
  }
  return parts.join(' ');
}

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

const EMPTY_FACETS = (): NonNullable<RecordsAtResult['facets']> => ({ memory_type: [], namespace: [], status: [], file: [], tier: [] });

/** records.ts `firstPageCounts`: from the counters (latest) or their changes summed up to `at`; other totals counted. */
async function firstPageCounts(db: Queryable, agentId: string, at: number, latest: boolean, filters: RecordFilters):
  Promise<{ facets: NonNullable<RecordsAtResult['facets']>; total: number }> {
  const counters = latest
    ? await rows<StoredFacetRow>(db, 'SELECT facet, value, count FROM record_facets WHERE agent_id = $1', [agentId])
    : await rows<StoredFacetRow>(db, `SELECT facet, value, sum(change)::int AS count FROM record_facet_changes
        WHERE agent_id = $1 AND seq <= $2 GROUP BY facet, value HAVING sum(change) <> 0`, [agentId, at]);
  const count = async () => {
    const tp = new Params();
    const live = latest ? currentVersions(tp, agentId, () => '', '') : liveAt(tp, agentId, at);
    return (await first<{ n: number }>(db, `WITH live AS (${live}) SELECT count(*) AS n FROM live WHERE 1 = 1 ${filterSql(tp, filters)}`, tp))?.n ?? 0;
  };
  return { facets: facetsFromCounters(counters), total: totalFromCounters(filters, counters) ?? await count() };
}

export async function getRecordsAt(db: Queryable, params: {
  agentId: string; at?: number; limit?: number; cursor?: string; sort?: RecordSort; tenantId?: TenantScope;
} & RecordFilters): Promise<RecordsAtResult | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  if (agent.latest_sequence === null) return { at: params.at ?? 0, total: 0, items: [], next_cursor: null, facets: EMPTY_FACETS() };
  const limit = checkLimit(params.limit, 100, 1000);
  const sort = params.sort ?? 'file';
  if (!RECORD_SORTS.includes(sort)) throw new LedgerError('invalid_input', `sort must be file, heading or changed, got "${String(sort)}"`);
  const read = params.cursor === undefined ? undefined : readRecordsCursor(params.cursor, agent.id, { ...params, sort });
  const cursor = read?.after;
  const at = read?.at ?? params.at ?? agent.latest_sequence;
  assertSequence(agent, at);
  const latest = at === agent.latest_sequence;
  let facets: RecordsAtResult['facets'] = null;
  let total: number | null = null;
  if (cursor === undefined) ({ facets, total } = await firstPageCounts(db, agent.id, at, latest, params));
  type Row = Omit<RecordAtItem, 'tags' | 'tier' | 'key'> & { tags: string; version_id: number; record_json: string };
  const pp = new Params();
  let found: Row[];
  if (latest) {
    const { order, after } = sortSql(pp, sort, 'v', 'v.id', cursor);
    found = await rows<Row>(db, currentVersions(pp, agent.id, (v) => `${filterSql(pp, params, v)} ${after}`, order, limit + 1), pp);
  } else {
    const { order, after } = sortSql(pp, sort, 'v', 'v.id', cursor);
    found = await rows<Row>(db, versionsAt(pp, agent.id, at, (v) => `${filterSql(pp, params, v)} ${after}`, order, limit + 1), pp);
  }
  const shown = found.slice(0, limit);
  const page = shown.map(({ version_id: _v, record_json, ...r }) => {
    const tags = parseTags(r.tags);
    return { ...r, key: r.heading === null ? keyOf(record_json) : null, tags, tier: tierOf(tags) };
  });
  const last = shown[shown.length - 1];
  const lastKey = (r: Row) => (sort === 'changed' ? r.seq : sort === 'file' ? (r.origin_file ?? '') : (r.heading ?? ''));
  return {
    at, total, items: page,
    next_cursor: found.length > limit && last ? recordsCursor(agent.id, params, at, [sort, lastKey(last), last.version_id]) : null,
    facets,
  };
}
