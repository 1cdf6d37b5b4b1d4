import { hermesSessionId } from '@/lib/core/ids';
import type { JsonObject } from '@/lib/core/json';
import { orderRecordFields, type MemoryRecord } from '@/lib/core/record';
import { captureDdl, readRowsNoting, tableExists, type Db } from '@/lib/adapters/zeroclaw/sqlite-io';
import { unixSecondsToRfc3339 } from '@/lib/adapters/zeroclaw/time';
import { rowToJson } from './row-json';
import { renderTranscript, sessionSource } from './transcript';

/** Sessions with their messages, as JSON rows (every column). */
export interface StateDbContent {
  sessions: { session: JsonObject; messages: JsonObject[] }[];
  /** Messages whose session the sessions table does not hold, by session id (no record carries them). */
  orphanMessages: { sessionId: string; count: number }[];
  /** Values a record cannot carry exactly (`readRowsNoting`). */
  warnings: string[];
  ddl: string[];
  schemaVersion: number;
}

/** Reads every session (ordered by started_at, id) and its messages (by id). */
export function readStateDb(db: Db): StateDbContent {
  const schemaVersion = tableExists(db, 'schema_version')
    ? ((db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined)?.version ?? -1)
    : -1;
  if (!tableExists(db, 'sessions')) return { sessions: [], orphanMessages: [], warnings: [], ddl: captureDdl(db), schemaVersion };
  const warnings: string[] = [];
  const sessions = readRowsNoting(db, { table: 'sessions', sql: 'SELECT * FROM sessions ORDER BY started_at, id', warnings }).map(rowToJson);
  const byId = new Map<string, JsonObject[]>();
  if (tableExists(db, 'messages')) {
    for (const row of readRowsNoting(db, { table: 'messages', sql: 'SELECT * FROM messages ORDER BY session_id, id', warnings })) {
      const message = rowToJson(row);
      const sid = String(message.session_id);
      const bucket = byId.get(sid);
      if (bucket) bucket.push(message);
      else byId.set(sid, [message]);
    }
  }
  const sessionIds = new Set(sessions.map((session) => String(session.id)));
  const orphanMessages = [...byId]
    .filter(([sid]) => !sessionIds.has(sid))
    .map(([sessionId, messages]) => ({ sessionId, count: messages.length }));
  return {
    sessions: sessions.map((session) => ({ session, messages: byId.get(String(session.id)) ?? [] })),
    orphanMessages,
    warnings,
    ddl: captureDdl(db),
    schemaVersion,
  };
}

/**
 * One episodic record per session (CONTRACT §4.5). The id derives from the native
 * session id, so an open session that gains messages keeps its id and changes content.
 */
export function sessionRecord(args: {
  session: JsonObject;
  messages: JsonObject[];
  agentId: string;
  now: string;
  /** Where a time no date holds is said (the record takes the export time; its row keeps the value). */
  warnings?: string[];
}): MemoryRecord {
  const { session, messages } = args;
  const nativeId = String(session.id);
  const source = sessionSource(session);
  const said = (what: string) => args.warnings?.push(`state.db: session ${JSON.stringify(nativeId)}: ${what}`);
  let startedAt = secondsToRfc3339(session.started_at);
  if (startedAt === null) {
    said(`started_at ${JSON.stringify(session.started_at ?? null)} is not unix seconds of a date (years 0 to 9999); using the export time (the row keeps its value)`);
    startedAt = args.now;
  }
  const updatedAt = lastActivity(session, messages, said);
  return orderRecordFields({
    id: hermesSessionId(nativeId),
    agent_id: args.agentId,
    content: renderTranscript(session, messages),
    memory_type: 'episodic',
    category: source,
    source: { runtime: 'hermes', origin: 'state_db', extraction_method: 'agent_written', session_id: nativeId },
    temporal: { created_at: startedAt, observed_at: startedAt, ...(updatedAt !== null ? { updated_at: updatedAt } : {}) },
    status: 'active',
    tags: [...new Set(['hermes', 'session', source])],
    namespace: `session:${source}`,
    raw_source_format: { messages, session },
  });
}

/** ended_at, else the newest message timestamp, else none (a time no date holds is said, and left out). */
function lastActivity(session: JsonObject, messages: readonly JsonObject[], said: (what: string) => void): string | null {
  let newest: number | null = null;
  if (typeof session.ended_at === 'number') newest = session.ended_at;
  else for (const m of messages) if (typeof m.timestamp === 'number' && (newest === null || m.timestamp > newest)) newest = m.timestamp;
  if (newest === null) return null;
  const at = secondsToRfc3339(newest);
  if (at === null) said(`its last activity (${typeof session.ended_at === 'number' ? 'ended_at' : 'newest message timestamp'}) ${newest} is not unix seconds of a date (years 0 to 9999); the record has no updated_at (the row keeps its value)`);
  return at;
}

/** Unix seconds of a time RFC 3339 can write (years 0000 to 9999) → RFC 3339 UTC; else null. */
function secondsToRfc3339(value: unknown): string | null {
  if (typeof value !== 'number' || !(value >= -62_167_219_200 && value < 253_402_300_800)) return null;
  return unixSecondsToRfc3339(value);
}
