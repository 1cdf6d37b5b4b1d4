import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { RecordOp } from '@/db/schema';
import { LedgerError } from '@/lib/ledger';
import { checkLimit, decodeCursor, encodeCursor, movedFromFile, snippet, tenantSql, type CursorList, type TenantScope } from './common';
import { updateDiff, updateDiffColumns } from './change-diffs';
import { parseIsoTime } from './iso-time';
import { allRows } from './prepared';
import type { DiffSegment } from '@/lib/ui/diff';

const DAY = 86_400_000;

/**
 * Parses a "since" expression: an ISO date/time (a bare date or time without zone is UTC), `Nd`
 * (N days before now, e.g. `7d`), `this-week` (Monday 00:00 UTC of now's week) or `today`.
 * Anything else throws `LedgerError('invalid_input')`.
 */
export function parseSince(text: string, now: Date): Date {
  const value = text.trim();
  const days = /^(\d{1,5})d$/.exec(value);
  if (days) return new Date(now.getTime() - Number(days[1]) * DAY);
  if (value === 'today') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (value === 'this-week') {
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    return new Date(midnight - sinceMonday * DAY);
  }
  const time = parseIsoTime(value);
  // A lower bound finer than the stored milliseconds rounds up, as the parse cuts it down: since
  // 07:36:00.0001 does not take a sync made at 07:36:00.000.
  if (time) return /\.\d{3}\d*[1-9]/.test(value) ? new Date(time.getTime() + 1) : time;
  throw new LedgerError('invalid_input', `cannot read "${text}" as a time: use an ISO time, Nd (e.g. 7d), today or this-week`);
}

export interface ChangeItem {
  seq: number;
  op: RecordOp;
  record_id: string;
  heading: string | null;
  /** What names a record without a heading (a ZeroClaw row's `raw_source_format.key`); null when it has a heading or no key. */
  key: string | null;
  origin_file: string | null;
  memory_type: string;
  synced_at: string;
  snippet: string;
  /** A move's other side: the record it was moved from and that record's file (null for other ops). */
  from_record_id: string | null;
  from_file: string | null;
  /** For an update: its changed words against the previous version, with a little context. */
  diff?: DiffSegment[];
  /**
   * For an update whose text differs from the previous version's only in whitespace at the ends of
   * lines and of the text (its `diff` shows nothing a reader can see): what changed, in the words the
   * compare, lineage and sequence pages use (lib/ui/whitespace-words.ts), e.g. "Only whitespace
   * changed: a line break added at the end." Absent otherwise.
   */
  whitespace_change?: string;
}

export interface ChangeGroup {
  agent_id: string;
  agent_name: string;
  day: string;
  changes: ChangeItem[];
}

/** The ops a change can be filtered by. */
export const CHANGE_OPS = ['create', 'update', 'delete', 'move'] as const satisfies readonly RecordOp[];

/** Where a feed starts: a time, or a since expression (`parseSince`: ISO time, `Nd`, `today`, `this-week`) read against `now`. */
export type FeedSince = Date | string;

const MOVING = /^(\d{1,5}d|today|this-week)$/;

/**
 * The feed a cursor pages (common.ts `CursorList`): the tenant scope, the agent, the op filter and
 * `since` as asked — a window that moves with the clock (`7d`, `today`, `this-week`) as written,
 * any other as the time it is. The time the first page read the window as is in the cursor's
 * position, and every page of that cursor starts there (`readFeed`), so a `7d` feed paged across
 * midnight, or a sync, is one list.
 */
export const changesList = (p: { tenantId?: TenantScope; agentId?: string; op?: string }, asked: string): CursorList =>
  ['changes', p.tenantId === undefined ? '*' : p.tenantId, p.agentId?.toLowerCase() ?? null, p.op ?? null, asked];

const isIso = (v: unknown): v is string => typeof v === 'string' && parseIsoTime(v)?.toISOString() === v;

/** A feed cursor's position: the (synced_at, id) of the last change of the page before, then the feed's `since`. */
const isFeedPosition = (v: unknown): v is [string, number, string] =>
  Array.isArray(v) && v.length === 3 && typeof v[0] === 'string' && parseIsoTime(v[0]) !== null && Number.isSafeInteger(v[1]) && isIso(v[2]);

export interface FeedRead {
  /** The feed's lower bound (ISO): `since` read now, or the one the cursor's first page read. */
  since: string;
  /** `since` as the cursor ties it (`changesList`). */
  asked: string;
  /** Where the page goes on: the (synced_at, id) of the last change before it. */
  after: [string, number] | undefined;
}

/**
 * Reads a feed's `since` (both backends): invalid_input in words for a time that is none; with a
 * cursor, the cursor of another feed (agent, op, tenant, or `since`) is refused ("belongs to another
 * search or list"), and the page starts where the cursor's first page did.
 */
export function readFeed(p: { tenantId?: TenantScope; agentId?: string; op?: string; since: FeedSince; now?: Date; cursor?: string }): FeedRead {
  let start: Date;
  let asked: string;
  if (p.since instanceof Date) {
    if (Number.isNaN(p.since.getTime())) throw new LedgerError('invalid_input', 'since is not a valid time');
    start = p.since;
    asked = start.toISOString();
  } else {
    start = parseSince(p.since, p.now ?? new Date());
    const trimmed = p.since.trim();
    asked = MOVING.test(trimmed) ? trimmed : start.toISOString();
  }
  if (p.cursor === undefined) return { since: start.toISOString(), asked, after: undefined };
  const [at, id, since] = decodeCursor(p.cursor, changesList(p, asked), isFeedPosition);
  return { since, asked, after: [at, id] };
}

/** The cursor of the page after the change (synced_at, id) of the feed `read`. */
export function feedCursor(p: { tenantId?: TenantScope; agentId?: string; op?: string }, read: FeedRead, last: { synced_at: string; id: number }): string {
  return encodeCursor(changesList(p, read.asked), [last.synced_at, last.id, read.since]);
}

/**
 * Record versions synced at or after `since` (tombstones included, with their time), grouped by
 * agent and UTC day, newest first. A move is one change (op `move`, the record moved to, with the
 * file it came from): neither a delete nor a create. Keyset-paged, `limit` changes a page (default
 * 200): the order is (synced_at, id) descending — exactly the order of the synced_at indexes, which
 * end in the rowid, so a page reads `limit` index entries. A change ingested between two pages has
 * a later synced_at than any listed, so it never shifts the pages after it. `next_cursor` (opaque)
 * asks for the next page; `truncated` = there is one.
 */
export function getChanges(params: {
  db: LineageDb; tenantId?: TenantScope; since: FeedSince; now?: Date; agentId?: string; op?: RecordOp; limit?: number; cursor?: string;
}): { since: string; groups: ChangeGroup[]; truncated: boolean; next_cursor: string | null } {
  if (params.op !== undefined && !(CHANGE_OPS as readonly string[]).includes(params.op)) {
    throw new LedgerError('invalid_input', `op must be create, update, delete or move, got "${String(params.op)}"`);
  }
  const limit = checkLimit(params.limit, 200, 1000);
  const read = readFeed(params);
  const since = read.since;
  const after = read.after === undefined ? sql`` : sql`AND (v.synced_at, v.id) < (${read.after[0]}, ${read.after[1]})`;
  // The page is chosen first (MATERIALIZED), then only its rows get the per-row lookups (a move's source file, an
  // update's two contents): where the order needs a sort (a tenant's fleet feed), SQLite would otherwise work out
  // every selected column of every change in the window before keeping `limit`.
  const rows = allRows<Omit<ChangeItem, 'snippet'> & {
    agent_id: string; agent_name: string; content: string; id: number; diff_before: string | null; diff_after: string | null;
  }>(params.db.db, sql`
    WITH page AS MATERIALIZED (
      SELECT v.id, v.agent_id, a.name AS agent_name, v.seq, v.entry_kind, v.op, v.record_id, v.heading,
        CASE WHEN v.heading IS NULL AND json_valid(v.record_json) THEN json_extract(v.record_json, '$.raw_source_format.key') END AS key,
        v.origin_file, v.memory_type, v.synced_at, substr(v.content, 1, 400) AS content, v.moved_from
      FROM record_versions v JOIN agents a ON a.id = v.agent_id
      WHERE v.synced_at >= ${since} ${after} ${tenantSql('a', params.tenantId)}
        ${params.agentId === undefined ? sql`` : sql`AND v.agent_id = ${params.agentId.toLowerCase()}`}
        ${params.op === undefined ? sql`` : sql`AND v.op = ${params.op}`}
      ORDER BY v.synced_at DESC, v.id DESC
      LIMIT ${limit + 1})
    SELECT page.id, page.agent_id, page.agent_name, page.seq, page.op, page.record_id, page.heading, page.key,
      page.origin_file, page.memory_type, page.synced_at, page.content,
      page.moved_from AS from_record_id, ${movedFromFile('page')} AS from_file, ${updateDiffColumns('page')}
    FROM page ORDER BY page.synced_at DESC, page.id DESC`);
  const groups = new Map<string, ChangeGroup>();
  const shown = rows.slice(0, limit);
  for (const { agent_id, agent_name, content, id: _id, diff_before, diff_after, ...change } of shown) {
    const day = change.synced_at.slice(0, 10);
    const key = `${day}|${agent_id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { agent_id, agent_name, day, changes: [] }));
    const diff = change.op === 'update' ? updateDiff({ diff_before, diff_after }) : {};
    group.changes.push({ ...change, snippet: snippet(content, undefined, 80), ...diff });
  }
  const ordered = [...groups.values()].sort((a, b) =>
    (a.day === b.day ? a.agent_name.localeCompare(b.agent_name) || a.agent_id.localeCompare(b.agent_id) : b.day.localeCompare(a.day)));
  const last = shown[shown.length - 1];
  const next_cursor = rows.length > limit && last ? feedCursor(params, read, last) : null;
  return { since, groups: ordered, truncated: next_cursor !== null, next_cursor };
}
