import { insertRow, tableColumns, type Db, type TableRows } from '@/lib/adapters/zeroclaw/sqlite-io';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import { jsonToSqlValue } from './row-json';
import { unrestorableRecord } from '@/lib/adapters/shared/errors';

/** A session as carried in a record's `raw_source_format`. */
export interface SessionRows {
  session: JsonObject;
  messages: JsonObject[];
}

/** The sessions carried by Hermes session records (`raw_source_format.{session,messages}`). */
export function sessionsFromRecords(records: readonly MemoryRecord[]): SessionRows[] {
  return records.flatMap((record) => {
    const raw = record.raw_source_format;
    if (record.source.origin !== 'state_db' || !isJsonObject(raw) || !isJsonObject(raw.session)) return [];
    // Hermes' ids are text; a legacy or another writer's untyped column may hold a number, which sync carried.
    if (typeof raw.session.id !== 'string' && typeof raw.session.id !== 'number') throw unrestorableRecord(`record ${record.id}: its raw_source_format.session.id is ${JSON.stringify(raw.session.id)}, not a session id`);
    const messages = Array.isArray(raw.messages) ? raw.messages.filter(isJsonObject) : [];
    return [{ session: raw.session, messages }];
  });
}

/**
 * Writes sessions and their messages in ONE transaction. With `replace`, a session
 * already in the database is replaced (its messages first); sessions not in the list
 * are never touched. A message id already used by an untouched session gets a fresh
 * id (with a warning) instead of overwriting that message. Foreign keys are off for
 * this connection only, so a child session may precede its parent. FTS follows
 * through Hermes' own triggers.
 */
export function writeSessions(db: Db, sessions: readonly SessionRows[], opts: { replace: boolean }): string[] {
  const warnings: string[] = [];
  const { pick, dropped } = picker(db);
  db.pragma('foreign_keys = OFF');
  db.transaction(() => {
    const ownerOf = db.prepare('SELECT session_id FROM messages WHERE id = ?');
    for (const { session, messages } of sessions) {
      if (opts.replace) {
        const id = jsonToSqlValue(session.id, 'sessions.id');
        db.prepare('DELETE FROM messages WHERE session_id = ?').run(id);
        db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
      }
      insertRow(db, 'sessions', pick(session, 'sessions'));
      for (const message of messages) {
        const row = pick(message, 'messages');
        if (opts.replace && row.id !== undefined && ownerOf.get(row.id) !== undefined) {
          warnings.push(`message ${String(row.id)} of session ${String(session.id)} got a new id: its id is used by another session`);
          delete row.id;
        }
        insertRow(db, 'messages', row);
      }
    }
  })();
  db.pragma('foreign_keys = ON');
  warnings.push(...dropped());
  return warnings;
}

/**
 * The `sessions` and `messages` rows of a fresh `state.db` (`sqlite-io.ts` `buildFromSourceDdl` writes them), in the
 * columns `db` (its schema) has, each value as SQLite binds it; `warnings` says the columns left out.
 */
export function freshSessionRows(db: Db, sessions: readonly SessionRows[]): { rows: TableRows; warnings: string[] } {
  const { pick, dropped } = picker(db);
  const sessionRows = sessions.map(({ session }) => pick(session, 'sessions'));
  const messageRows = sessions.flatMap(({ messages }) => messages.map((message) => pick(message, 'messages')));
  return { rows: new Map([['sessions', sessionRows], ['messages', messageRows]]), warnings: dropped() };
}

/** Picks a JSON row's values in the columns the table has (`jsonToSqlValue`); `dropped()` says the others, once each. */
function picker(db: Db): { pick: (row: JsonObject, table: 'sessions' | 'messages') => Record<string, unknown>; dropped: () => string[] } {
  const columns = { sessions: tableColumns(db, 'sessions'), messages: tableColumns(db, 'messages') };
  const dropped = new Set<string>();
  const pick = (row: JsonObject, table: 'sessions' | 'messages'): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(row)) {
      if (columns[table].includes(key)) out[key] = jsonToSqlValue(row[key], `${table}.${key}`);
      else dropped.add(`${table}.${key}`);
    }
    return out;
  };
  return { pick, dropped: () => [...dropped].sort().map((column) => `state.db has no ${column} column; restored rows leave it out`) };
}
