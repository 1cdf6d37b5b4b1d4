/**
 * The rows of a ZeroClaw or Hermes agent's database at a sequence (lib/history/queries/
 * database-records.ts) on PostgreSQL: the same live records without a file (`liveAt`), in record
 * id order (`COLLATE "C"`), the same cut content (`substr`/`length` count characters on both),
 * the key and category read from the record's JSON in JS (json-path.ts), the same page.
 */
import { assertSequence, checkLimit, type TenantScope } from '@/lib/history/queries/common';
import {
  DATABASE_CONTENT_CHARS, databaseRecordsAfter, databaseRecordsPage, noDatabase, type DatabaseRecordsResult,
} from '@/lib/history/queries/database-records';
import { databaseRuntime } from '@/lib/history/queries/database-runtime';
import { findAgent } from './agents';
import { parsedJson, stringAt } from './json-path';
import { liveAt } from './records';
import { first, Params, rows, type Queryable } from './sql';

export async function getDatabaseRecords(db: Queryable, params: { agentId: string; seq: number; limit?: number; cursor?: string; tenantId?: TenantScope }):
  Promise<DatabaseRecordsResult | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const runtime = databaseRuntime(agent.source_runtime);
  if (runtime === null) return noDatabase(params.seq);
  const limit = checkLimit(params.limit, 200, 500);
  const afterId = databaseRecordsAfter(params.cursor, agent.id, params.seq);
  const tp = new Params();
  const counting = first<{ n: number }>(db, `WITH live AS (${liveAt(tp, agent.id, params.seq)})
    SELECT count(*)::int AS n FROM live WHERE origin_file IS NULL`, tp);
  // The page's record ids first, then the cut contents and JSON of those rows only (as the SQLite verb).
  const p = new Params();
  const live = liveAt(p, agent.id, params.seq);
  // PostgreSQL text cannot hold U+0000; no stored id does, so "after p + NUL + q" is "after p" in byte order, as SQLite compares.
  const after = afterId === undefined ? '' : `AND record_id COLLATE "C" > ${p.add(afterId.split('\u0000')[0])}`;
  const reading = rows<{ record_id: string; content: string; content_length: number; seq: number; synced_at: string; record_json: string }>(db, `
    WITH live AS (${live}), page AS (
      SELECT record_id, version_id FROM live WHERE origin_file IS NULL ${after} ORDER BY record_id COLLATE "C" LIMIT ${p.add(limit + 1)})
    SELECT page.record_id, substr(v.content, 1, ${p.add(DATABASE_CONTENT_CHARS)}) AS content, length(v.content) AS content_length, v.seq, v.synced_at,
      v.record_json
    FROM page JOIN record_versions v ON v.id = page.version_id ORDER BY page.record_id COLLATE "C"`, p);
  const [total, found] = await Promise.all([counting.then((r) => r?.n ?? 0), reading]);
  const page = found.map(({ record_json, ...row }) => {
    const json = parsedJson(record_json);
    return { ...row, key: stringAt(json, ['raw_source_format', 'key'], ['source', 'session_id']), category: stringAt(json, ['category']) };
  });
  return databaseRecordsPage({ agentId: agent.id, seq: params.seq, runtime, total, limit, rows: page });
}
