/**
 * Drizzle `sql` queries run through statements prepared once per connection, keyed by their SQL
 * text (values stay parameters, so a query's text varies only with its shape). Preparing each
 * query again on every call cost ~0.4 of a lineage's ~2 ms, and the lineage page asks twice.
 */
import type Database from 'better-sqlite3';
import type { SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { Drizzle } from '@/db/client';

const dialect = new SQLiteSyncDialect();

/** A bound on the shapes kept per connection (a guard: the verbs using this have a few dozen). */
const MAX_STATEMENTS = 256;

const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function statement(db: Drizzle, text: string, raw = false): Database.Statement {
  let cache = caches.get(db.$client);
  if (!cache) caches.set(db.$client, (cache = new Map()));
  const key = raw ? `raw:${text}` : text;
  let found = cache.get(key);
  if (!found) {
    if (cache.size >= MAX_STATEMENTS) cache.clear();
    found = db.$client.prepare(text);
    if (raw) found.raw(true);
    cache.set(key, found);
  }
  return found;
}

/** Every row of `query` (as `db.all` gives them). */
export function allRows<T>(db: Drizzle, query: SQL): T[] {
  const { sql, params } = dialect.sqlToQuery(query);
  return statement(db, sql).all(...params) as T[];
}

/** Every row of `query` as an array of its columns' values, in the SELECT's order (no object per row). */
export function rawRows<T extends unknown[]>(db: Drizzle, query: SQL): T[] {
  const { sql, params } = dialect.sqlToQuery(query);
  return statement(db, sql, true).all(...params) as T[];
}

/** The first row of `query`, or undefined (as `db.get` gives it). */
export function firstRow<T>(db: Drizzle, query: SQL): T | undefined {
  const { sql, params } = dialect.sqlToQuery(query);
  return statement(db, sql).get(...params) as T | undefined;
}

/** Drops the statements kept for `sqlite`, so the next queries prepare theirs again (the plan tests watch `prepare`). */
export function forgetStatements(sqlite: Database.Database): void {
  caches.delete(sqlite);
}
