/**
 * A window of a lineage's versions, keyset-paged across the chain's record ids. Each id is read
 * through the key index (agent_id, record_id, seq, entry_kind) from the cursor on, `limit + 1` rows
 * at most, and the ids' rows are merged: a page costs O(chain × page), never the whole history.
 * The order is (seq, entry_kind, place in the chain), ascending ("oldest") or descending ("newest").
 */
import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { EntryKind } from '@/db/schema';
import type { JsonObject } from '@/lib/core/json';
import { LedgerError } from '@/lib/ledger';
import { decodeCursor, encodeCursor, movedFromFile, parseTags, type CursorList } from './common';
import type { LineageVersion } from './lineage';
import { allRows, firstRow } from './prepared';

export type VersionOrder = 'newest' | 'oldest';

/** Where a page starts: after the version (seq, entry_kind, record id) in the page's order. */
type Key = [number, EntryKind, string];

const isKey = (v: unknown): v is Key =>
  Array.isArray(v) && v.length === 3 && Number.isSafeInteger(v[0]) && (v[1] === 'delta' || v[1] === 'snapshot') && typeof v[2] === 'string';

/**
 * The list a lineage cursor pages (common.ts `CursorList`): the agent and the order. The memory is the
 * cursor's own version, which must be of the chain asked for (`versionPage`): any id of a chain pages
 * the same versions, and a chain a move lengthens between two pages is still the same list.
 */
const lineageList = (agentId: string, order: VersionOrder): CursorList => ['lineage', agentId, order];

export const decodeVersionCursor = (cursor: string, agentId: string, order: VersionOrder): Key => decodeCursor(cursor, lineageList(agentId, order), isKey);
export const encodeVersionCursor = (v: Pick<LineageVersion, 'seq' | 'entry_kind' | 'record_id'>, agentId: string, order: VersionOrder): string =>
  encodeCursor(lineageList(agentId, order), [v.seq, v.entry_kind, v.record_id]);

type Row = Omit<LineageVersion, 'tags' | 'record'> & { tags: string; record_json: string; moved_from: string | null; from_file: string | null };

/** Compares two versions in ascending lineage order. */
function ascending(place: Map<string, number>) {
  return (a: { seq: number; entry_kind: string; record_id: string }, b: { seq: number; entry_kind: string; record_id: string }) =>
    a.seq - b.seq || (a.entry_kind < b.entry_kind ? -1 : a.entry_kind > b.entry_kind ? 1 : 0) || place.get(a.record_id)! - place.get(b.record_id)!;
}

/** The condition "strictly after `key` in `order`" for record `id` (ties on (seq, kind) are broken by chain place). */
function afterKey(id: string, key: Key | undefined, order: VersionOrder, place: Map<string, number>): SQL {
  if (!key) return sql``;
  const [seq, kind, keyId] = key;
  const tieAfter = order === 'oldest' ? place.get(id)! > (place.get(keyId) ?? -1) : place.get(id)! < (place.get(keyId) ?? Infinity);
  const cmp = order === 'oldest' ? (tieAfter ? '>=' : '>') : (tieAfter ? '<=' : '<');
  return sql`AND (v.seq, v.entry_kind) ${sql.raw(cmp)} (${seq}, ${kind})`;
}

/** Up to `count` versions of the chain strictly after `key` (from the start when undefined), in `order`. */
export function chainVersions(db: LineageDb['db'], agentId: string, chain: string[], order: VersionOrder, count: number, key?: Key, where: SQL = sql``): LineageVersion[] {
  const place = new Map(chain.map((id, i) => [id, i]));
  const dir = sql.raw(order === 'oldest' ? 'ASC' : 'DESC');
  const rows: Row[] = [];
  for (const id of chain) {
    rows.push(...allRows<Row>(db, sql`
      SELECT v.seq, v.entry_kind, v.op, v.synced_at, v.record_id, v.content, v.content_sha256, v.memory_type, v.namespace, v.status,
        v.origin_file, v.heading, v.tags, v.record_json, v.moved_from, ${movedFromFile('v')} AS from_file
      FROM record_versions v WHERE v.agent_id = ${agentId} AND v.record_id = ${id} ${afterKey(id, key, order, place)} ${where}
      ORDER BY v.seq ${dir}, v.entry_kind ${dir} LIMIT ${count}`));
  }
  const cmp = ascending(place);
  rows.sort(order === 'oldest' ? cmp : (a, b) => cmp(b, a));
  return rows.slice(0, count).map(({ record_json, moved_from, tags, from_file, ...v }): LineageVersion => {
    const version: LineageVersion = { ...v, tags: parseTags(tags), record: JSON.parse(record_json) as JsonObject };
    if (v.op === 'move' && moved_from !== null) {
      Object.assign(version, { from_file, to_file: v.origin_file, from_record_id: moved_from, to_record_id: v.record_id });
    }
    return version;
  });
}

/** How many versions the chain has (index-only counts on the key index). */
export function chainVersionCount(db: LineageDb['db'], agentId: string, chain: string[]): number {
  return firstRow<{ n: number }>(db, sql`
    SELECT count(*) AS n FROM record_versions WHERE agent_id = ${agentId} AND record_id IN (SELECT value FROM json_each(${JSON.stringify(chain)}))`)?.n ?? 0;
}

/**
 * One page of versions in `order` after `cursor`, with `before`: the version that precedes the
 * page's oldest one (what its diff is drawn against), and the cursor of the next page.
 */
export function versionPage(db: LineageDb['db'], agentId: string, chain: string[], order: VersionOrder, limit: number, cursor?: string):
  { versions: LineageVersion[]; before: LineageVersion | null; next_cursor: string | null } {
  const key = cursor === undefined ? undefined : decodeVersionCursor(cursor, agentId, order);
  if (key && !chain.includes(key[2])) {
    throw new LedgerError('invalid_input', 'The paging cursor names a version of another memory; start again from the first page.');
  }
  const rows = chainVersions(db, agentId, chain, order, limit + 1, key);
  const versions = rows.slice(0, limit);
  const last = versions[versions.length - 1];
  const next_cursor = rows.length > limit && last ? encodeVersionCursor(last, agentId, order) : null;
  let before: LineageVersion | null = null;
  if (order === 'newest') before = rows[limit] ?? null;
  else if (versions[0]) before = chainVersions(db, agentId, chain, 'newest', 1, [versions[0].seq, versions[0].entry_kind, versions[0].record_id])[0] ?? null;
  return { versions, before, next_cursor };
}
