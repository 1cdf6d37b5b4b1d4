/**
 * The change feed (lib/history/queries/changes.ts) on PostgreSQL: the same rows, order, grouping,
 * snippets and update diffs. `json_extract(record_json, '$.raw_source_format.key')` is read here
 * from the record's JSON, for rows without a heading only.
 */
import type { RecordOp } from '@/db/schema';
import { LedgerError } from '@/lib/ledger/errors';
import { checkLimit, snippet, type TenantScope } from '@/lib/history/queries/common';
import { CHANGE_OPS, feedCursor, readFeed, type ChangeGroup, type ChangeItem, type FeedSince } from '@/lib/history/queries/changes';
import { updateDiff as updateChange } from '@/lib/history/queries/change-diffs';
import { first, Params, rows, tenantCondition, type Queryable } from './sql';

export const MOVED_FROM_FILE = `CASE WHEN v.op = 'move' THEN (
    SELECT p.origin_file FROM record_versions p WHERE p.agent_id = v.agent_id AND p.record_id = v.moved_from
      AND (p.seq < v.seq OR (p.seq = v.seq AND p.entry_kind < v.entry_kind))
    ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END`;

function keyOf(recordJson: string | null): string | null {
  if (recordJson === null) return null;
  try {
    const key = (JSON.parse(recordJson) as { raw_source_format?: { key?: unknown } })?.raw_source_format?.key;
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

async function updateDiff(db: Queryable, r: { agent_id: string; record_id: string; seq: number }): Promise<ReturnType<typeof updateChange>> {
  const row = await first<{ after: string; before: string | null }>(db, `
    SELECT cur.content AS after,
      (SELECT p.content FROM record_versions p
        WHERE p.agent_id = $1 AND p.record_id = $2 AND p.seq < $3 AND p.op != 'delete'
        ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS before
    FROM record_versions cur
    WHERE cur.agent_id = $1 AND cur.record_id = $2 AND cur.seq = $3 AND cur.op = 'update'
    ORDER BY cur.entry_kind DESC LIMIT 1`, [r.agent_id, r.record_id, r.seq]);
  return updateChange({ diff_before: row?.before ?? null, diff_after: row?.after ?? null });
}

/** Keyset-paged in (synced_at, id) descending order, as the embedded feed (its cursor: the same keys). */
export async function getChanges(db: Queryable, params: {
  tenantId?: TenantScope; since: FeedSince; now?: Date; agentId?: string; op?: RecordOp; limit?: number; cursor?: string;
}): Promise<{ since: string; groups: ChangeGroup[]; truncated: boolean; next_cursor: string | null }> {
  if (params.op !== undefined && !(CHANGE_OPS as readonly string[]).includes(params.op)) {
    throw new LedgerError('invalid_input', `op must be create, update, delete or move, got "${String(params.op)}"`);
  }
  const limit = checkLimit(params.limit, 200, 1000);
  const read = readFeed(params);
  const since = read.since;
  const p = new Params();
  const after = read.after === undefined ? '' : `AND (v.synced_at, v.id) < (${p.add(read.after[0])}, ${p.add(read.after[1])}::bigint)`;
  const found = await rows<Omit<ChangeItem, 'snippet' | 'key'> & { id: number; agent_id: string; agent_name: string; content: string; key_json: string | null }>(db, `
    SELECT v.id, v.agent_id, a.name AS agent_name, v.seq, v.op, v.record_id, v.heading,
      CASE WHEN v.heading IS NULL THEN v.record_json END AS key_json,
      v.origin_file, v.memory_type, v.synced_at, substr(v.content, 1, 400) AS content,
      v.moved_from AS from_record_id, ${MOVED_FROM_FILE} AS from_file
    FROM record_versions v JOIN agents a ON a.id = v.agent_id
    WHERE v.synced_at >= ${p.add(since)} ${after} ${tenantCondition(p, 'a', params.tenantId)}
      ${params.agentId === undefined ? '' : `AND v.agent_id = ${p.add(params.agentId.toLowerCase())}`}
      ${params.op === undefined ? '' : `AND v.op = ${p.add(params.op)}`}
    ORDER BY v.synced_at DESC, v.id DESC
    LIMIT ${p.add(limit + 1)}`, p);
  const groups = new Map<string, ChangeGroup>();
  const shown = found.slice(0, limit);
  for (const { agent_id, agent_name, content, key_json, id: _id, ...rest } of shown) {
    const change = { seq: rest.seq, op: rest.op, record_id: rest.record_id, heading: rest.heading, key: keyOf(key_json),
      origin_file: rest.origin_file, memory_type: rest.memory_type, synced_at: rest.synced_at, from_record_id: rest.from_record_id, from_file: rest.from_file };
    const day = change.synced_at.slice(0, 10);
    const key = `${day}|${agent_id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { agent_id, agent_name, day, changes: [] }));
    const diff = change.op === 'update' ? await updateDiff(db, { agent_id, record_id: change.record_id, seq: change.seq }) : {};
    group.changes.push({ ...change, snippet: snippet(content, undefined, 80), ...diff });
  }
  const ordered = [...groups.values()].sort((a, b) =>
    (a.day === b.day ? a.agent_name.localeCompare(b.agent_name) || a.agent_id.localeCompare(b.agent_id) : b.day.localeCompare(a.day)));
  const last = shown[shown.length - 1];
  const next_cursor = found.length > limit && last ? feedCursor(params, read, last) : null;
  return { since, groups: ordered, truncated: next_cursor !== null, next_cursor };
}
