import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { databaseRuntime, type DatabaseRuntime } from './database-runtime';
import { liveAt } from './records';
import { assertSequence, checkLimit, decodeCursor, encodeCursor, findAgent, type CursorList, type TenantScope } from './common';

/** Where `lineage restore --out` writes each runtime's database (the ZeroClaw store path, the Hermes home's state.db). */
export const DATABASE_FILE = { zeroclaw: 'data/memory/brain.db', hermes: 'state.db' } as const;

/** Characters of a record's content a row carries: a Hermes session's transcript can be long; the lineage page has it whole. */
export const DATABASE_CONTENT_CHARS = 400;

export interface DatabaseRecordItem {
  record_id: string;
  /** ZeroClaw: the row's `key`; Hermes: the session id. */
  key: string | null;
  /** ZeroClaw: the row's `category`; Hermes: the session's source. */
  category: string | null;
  /** The first `DATABASE_CONTENT_CHARS` characters; `content_length` says how long it is. */
  content: string;
  content_length: number;
  /** Sequence (and sync time) of the version live at `seq`: its last change. */
  seq: number;
  synced_at: string;
}

export interface DatabaseRecordsResult {
  seq: number;
  /** The database file these rows are written into by restore and the downloads; null for a runtime without one (OpenClaw). */
  database: string | null;
  total: number;
  items: DatabaseRecordItem[];
  next_cursor: string | null;
}

const isCursor = (v: unknown): v is [string] => Array.isArray(v) && v.length === 1 && typeof v[0] === 'string';

/** The list a database-rows cursor pages (common.ts `CursorList`): one agent's database at one sequence. */
const databaseList = (agentId: string, seq: number): CursorList => ['database records', agentId, seq];

/** The record id a page starts after (a cursor this list gave out), or undefined for the first page. */
export function databaseRecordsAfter(cursor: string | undefined, agentId: string, seq: number): string | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor, databaseList(agentId, seq), isCursor)[0];
}

/** A row as read: at most `limit + 1` of them in record-id order (one more tells there is a next page), the key and category as extracted. */
export type DatabaseRecordRow = Omit<DatabaseRecordItem, 'key' | 'category'> & { key: unknown; category: unknown };

/** The page from the rows read (shared with the PostgreSQL verb, lib/storage/pg/database-records.ts). */
export function databaseRecordsPage(p: { agentId: string; seq: number; runtime: DatabaseRuntime; total: number; limit: number; rows: readonly DatabaseRecordRow[] }): DatabaseRecordsResult {
  const items = p.rows.slice(0, p.limit).map((r) => ({ ...r, key: typeof r.key === 'string' ? r.key : null, category: typeof r.category === 'string' ? r.category : null }));
  const last = items[items.length - 1];
  return { seq: p.seq, database: DATABASE_FILE[p.runtime], total: p.total, items, next_cursor: p.rows.length > p.limit && last ? encodeCursor(databaseList(p.agentId, p.seq), [last.record_id]) : null };
}

/** The answer for an agent without a database (OpenClaw). */
export const noDatabase = (seq: number): DatabaseRecordsResult => ({ seq, database: null, total: 0, items: [], next_cursor: null });

/**
 * The rows of a ZeroClaw or Hermes agent's database at `seq`: its records live then that no file
 * carries (ZeroClaw's `memories` rows, Hermes' sessions; Hermes' curated entries live in
 * memories/MEMORY.md), in record-id order, a page at a time. An OpenClaw agent has no database: no
 * rows, `database` null. Null for an unknown agent.
 */
export function getDatabaseRecords(params: { db: LineageDb; agentId: string; seq: number; limit?: number; cursor?: string; tenantId?: TenantScope }): DatabaseRecordsResult | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const runtime = databaseRuntime(agent.source_runtime);
  if (runtime === null) return noDatabase(params.seq);
  const limit = checkLimit(params.limit, 200, 500);
  const live = liveAt(agent.id, params.seq);
  const afterId = databaseRecordsAfter(params.cursor, agent.id, params.seq);
  const after = afterId === undefined ? sql`` : sql`AND record_id > ${afterId}`;
  const { db } = params.db;
  const total = db.get<{ n: number }>(sql`WITH live AS (${live}) SELECT count(*) AS n FROM live WHERE origin_file IS NULL`)?.n ?? 0;
  // json_valid first: a record stored before ingest refused deep JSON would make json_extract throw.
  const rows = db.all<DatabaseRecordRow>(sql`
    WITH live AS (${live}), page AS (SELECT * FROM live WHERE origin_file IS NULL ${after} ORDER BY record_id LIMIT ${limit + 1})
    SELECT p.record_id, substr(p.content, 1, ${DATABASE_CONTENT_CHARS}) AS content, length(p.content) AS content_length, p.seq, p.synced_at,
      CASE WHEN json_valid(v.record_json) THEN coalesce(json_extract(v.record_json, '$.raw_source_format.key'), json_extract(v.record_json, '$.source.session_id')) END AS key,
      CASE WHEN json_valid(v.record_json) THEN json_extract(v.record_json, '$.category') END AS category
    FROM page p JOIN record_versions v ON v.id = p.version_id ORDER BY p.record_id`);
  return databaseRecordsPage({ agentId: agent.id, seq: params.seq, runtime, total, limit, rows });
}
