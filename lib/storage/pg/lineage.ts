/**
 * One memory's lineage (lib/history/queries/lineage.ts) on PostgreSQL: the same chain walk, rows
 * and ordering; `json_each(ids)` becomes `= ANY($n::text[])`.
 */
import type { EntryKind } from '@/db/schema';
import type { JsonObject } from '@/lib/core/json';
import { LedgerError } from '@/lib/ledger/errors';
import { checkLimit, parseTags, type TenantScope } from '@/lib/history/queries/common';
import type { LineageLink, LineageVersion, RecordLineage } from '@/lib/history/queries/lineage';
import { decodeVersionCursor, encodeVersionCursor, type VersionOrder } from '@/lib/history/queries/lineage-versions';
import { findAgent } from './agents';
import { MOVED_FROM_FILE } from './changes';
import { first, Params, rows, type Queryable } from './sql';

const MAX_CHAIN = 1000;

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

/** Where a page starts: after the version (seq, entry_kind, record id) in the page's order. */
type Key = [number, EntryKind, string];

type Row = Omit<LineageVersion, 'tags' | 'record'> & { tags: string; record_json: string; moved_from: string | null; from_file: string | null };

function ascending(place: Map<string, number>) {
  return (a: { seq: number; entry_kind: string; record_id: string }, b: { seq: number; entry_kind: string; record_id: string }) =>
    a.seq - b.seq || (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0) || place.get(a.record_id)! - place.get(b.record_id)!;
}

/** "Strictly after `key` in `order`" for record `id` (ties on (seq, kind) broken by chain place), as lineage-versions.ts. */
function afterKey(p: Params, id: string, key: Key | undefined, order: VersionOrder, place: Map<string, number>): string {
  if (!key) return '';
  const [seq, kind, keyId] = key;
  const tieAfter = order === 'oldest' ? place.get(id)! > (place.get(keyId) ?? -1) : place.get(id)! < (place.get(keyId) ?? Infinity);
  const cmp = order === 'oldest' ? (tieAfter ? '>=' : '>') : (tieAfter ? '<=' : '<');
  return `AND (v.seq, v.entry_kind COLLATE "C") ${cmp} (${p.add(seq)}::bigint, ${p.add(kind)})`;
}

/** Up to `count` versions of the chain strictly after `key` (from the start when undefined), in `order` (`chainVersions`). */
async function chainVersions(db: Queryable, agentId: string, chain: string[], order: VersionOrder, count: number, key?: Key, onlyMoves = false):
  Promise<LineageVersion[]> {
  const place = new Map(chain.map((id, i) => [id, i]));
  const dir = order === 'oldest' ? 'ASC' : 'DESC';
  const found: Row[] = [];
  for (const id of chain) {
    const p = new Params();
    const a = p.add(agentId);
    const r = p.add(id);
    const after = afterKey(p, id, key, order, place);
    found.push(...await rows<Row>(db, `
      SELECT v.seq, v.entry_kind, v.op, v.synced_at, v.record_id, v.content, v.content_sha256, v.memory_type, v.namespace, v.status,
        v.origin_file, v.heading, v.tags, v.record_json, v.moved_from, ${MOVED_FROM_FILE} AS from_file
      FROM record_versions v WHERE v.agent_id = ${a} AND v.record_id = ${r} ${after} ${onlyMoves ? `AND v.op = 'move'` : ''}
      ORDER BY v.seq ${dir}, v.entry_kind COLLATE "C" ${dir} LIMIT ${p.add(Math.min(count, Number.MAX_SAFE_INTEGER))}`, p));
  }
  const cmp = ascending(place);
  found.sort(order === 'oldest' ? cmp : (x, y) => cmp(y, x));
  return found.slice(0, count).map(({ record_json, moved_from, tags, from_file, ...v }): LineageVersion => {
    const version: LineageVersion = { ...v, tags: parseTags(tags), record: JSON.parse(record_json) as JsonObject };
    if (v.op === 'move' && moved_from !== null) {
      Object.assign(version, { from_file, to_file: v.origin_file, from_record_id: moved_from, to_record_id: v.record_id });
    }
    return version;
  });
}

async function chainVersionCount(db: Queryable, agentId: string, chain: string[]): Promise<number> {
  return (await first<{ n: number }>(db, 'SELECT count(*)::int AS n FROM record_versions WHERE agent_id = $1 AND record_id = ANY($2::text[])',
    [agentId, chain]))?.n ?? 0;
}

/** One page in `order` after `cursor`, with the page's diff base `before` and the next cursor (`versionPage`). */
async function versionPage(db: Queryable, agentId: string, chain: string[], order: VersionOrder, limit: number, cursor?: string):
  Promise<{ versions: LineageVersion[]; before: LineageVersion | null; next_cursor: string | null }> {
  const key = cursor === undefined ? undefined : decodeVersionCursor(cursor, agentId, order);
  if (key && !chain.includes(key[2])) {
    throw new LedgerError('invalid_input', 'The paging cursor names a version of another memory; start again from the first page.');
  }
  const found = await chainVersions(db, agentId, chain, order, limit + 1, key);
  const versions = found.slice(0, limit);
  const last = versions[versions.length - 1];
  const next_cursor = found.length > limit && last ? encodeVersionCursor(last, agentId, order) : null;
  let before: LineageVersion | null = null;
  if (order === 'newest') before = found[limit] ?? null;
  else if (versions[0]) before = (await chainVersions(db, agentId, chain, 'newest', 1, [versions[0].seq, versions[0].entry_kind, versions[0].record_id]))[0] ?? null;
  return { versions, before, next_cursor };
}

export async function getRecordLineage(db: Queryable, params: {
  agentId: string; recordId: string; tenantId?: TenantScope; limit?: number; cursor?: string; order?: VersionOrder;
}): Promise<RecordLineage | null> {
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
  const page = params.limit === undefined && params.cursor === undefined
    ? { versions: await chainVersions(db, agent.id, chain, 'oldest', Number.MAX_SAFE_INTEGER), before: null, next_cursor: null }
    : await versionPage(db, agent.id, chain, params.order ?? 'newest', checkLimit(params.limit, 50, 500), params.cursor);
  const head = records[records.length - 1]!;
  const born = records[0]!;
  const current = (await chainVersions(db, agent.id, [head.record_id], 'newest', 1))[0]!;
  const firstVersion = (await chainVersions(db, agent.id, [born.record_id], 'oldest', 1))[0];
  const ownMoveIn = await first<{ moved_from: string; seq: number }>(db, `
    SELECT moved_from, seq FROM record_versions WHERE agent_id = $1 AND record_id = $2 AND moved_from IS NOT NULL
    ORDER BY seq LIMIT 1`, [agent.id, recordId]);
  const movedTo = await rows<LineageLink>(db, `
    SELECT agent_id, record_id, origin_file, seq FROM record_versions
    WHERE agent_id = $1 AND moved_from = $2 ORDER BY seq, entry_kind COLLATE "C", record_id COLLATE "C"`, [agent.id, recordId]);
  return {
    record: {
      agent_id: agent.id, record_id: head.record_id, memory_type: current.memory_type, namespace: current.namespace,
      status: current.status, origin_file: current.origin_file, heading: current.heading, tags: current.tags,
      content: current.content, born_seq: born.first_seq, born_at: born.born_at, born_file: firstVersion?.origin_file ?? null,
      last_changed_seq: Math.max(...records.map((r) => r.last_seq)), last_changed_at: records.map((r) => r.last_changed_at).sort().at(-1)!,
      deleted_seq: head.deleted_seq,
    },
    chain,
    ...page,
    version_count: await chainVersionCount(db, agent.id, chain),
    moves: await chainVersions(db, agent.id, chain.slice(1), 'oldest', MAX_CHAIN, undefined, true),
    moved_from: ownMoveIn ? await link(db, agent.id, ownMoveIn.moved_from, ownMoveIn.seq) : null,
    moved_to: movedTo,
  };
}
