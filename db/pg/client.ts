/**
 * Opens the scale-out backend's PostgreSQL database (`LINEAGE_DATABASE_URL=postgres://…`) with
 * drizzle over a `pg` pool, migrated first. Integers come back as numbers: node-postgres returns
 * int8 (`count(*)`, `sum` of ints, bigint columns) and numeric as strings, and the query verbs
 * promise the same answers as the SQLite backend; a value beyond 2^53 is an error, not a
 * silently rounded number.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { packageRoot } from '../../lib/package-root';
import {
  connectError, connectTimeoutMs, DEFAULT_PG_READ_TIMEOUT_MS, isReadTimeout, pgOptionsProblem, pgTimeLimits, recordStatementCancel, statementCancel,
} from './connect-timeout';
import { knownMigrations, newestKnownMigration, refuseNewerSchema, schemaNewerThan, type SchemaNewer } from '../newer-schema';
import * as schema from './schema';

export type PgSchema = typeof schema;
export type PgDrizzle = NodePgDatabase<PgSchema>;

/** An open PostgreSQL database: the pool and the drizzle instance over it. */
export interface PgLineageDb {
  pool: pg.Pool;
  db: PgDrizzle;
  close(): Promise<void>;
}

/** An integer beyond 2^53 would come back rounded: refuse it instead. */
function exactNumber(text: string): number {
  const value = Number(text);
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(value)) {
    throw new Error(`PostgreSQL returned ${text}, which a JavaScript number cannot hold exactly`);
  }
  return value;
}

/**
 * Set on `pg`'s global parsers, not per pool: drizzle's node-postgres driver passes its own
 * per-query `types`, which fall back to the global ones. Only this backend uses `pg` in the process.
 */
pg.types.setTypeParser(pg.types.builtins.INT8, exactNumber);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, exactNumber);

function migrationsFolder(): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
  if (fs.existsSync(path.join(beside, 'meta', '_journal.json'))) return beside;
  const inPackage = path.join(packageRoot(), 'db', 'pg', 'migrations');
  if (fs.existsSync(path.join(inPackage, 'meta', '_journal.json'))) return inPackage;
  throw new Error(`PostgreSQL migrations not found beside ${beside} nor at ${inPackage}`);
}

/**
 * TCP keepalive on every connection, first probe after this long idle: a database host that is gone
 * (powered off, a partition) is found by the kernel instead of being waited for until a read limit
 * (or, for a migration, which has none, for ever).
 */
export const PG_KEEPALIVE_MS = 60_000;

/** `host:port/database` of a database URL, without its user or password. */
function databaseName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return '(its URL)';
  }
}

/** `pg`'s dispatch of a client's next queued statement (pg/lib/client.js): the one place a statement is sent. */
const pulseQueryQueue = (pg.Client.prototype as unknown as { _pulseQueryQueue(): void })._pulseQueryQueue;

/**
 * A `pg` client that tells how PostgreSQL cancelled a statement of it (SQLSTATE 57014): past the
 * connection's own `statement_timeout` (the config's, sent in the startup packet; none: 0) or by a
 * cancel request (pg_cancel_backend), from the time the statement was sent until its error came
 * (connect-timeout.ts `statementCancel`, `recordStatementCancel`). Before, the error's English words
 * told them apart, and a server whose `lc_messages` is another language had every operator's cancel
 * taken for a time limit. The cost per statement: one `performance.now()` as it is sent.
 */
export class CancelTimingClient extends pg.Client {
  readonly #limitMs: number;
  /** The statement running now (pg's `activeQuery`) and when it was sent. */
  #sent: unknown = null;
  #sentAt = 0;

  constructor(config?: pg.ClientConfig) {
    super(config);
    this.#limitMs = typeof config?.statement_timeout === 'number' ? config.statement_timeout : 0;
    // Before pg's own listener (attached as it connects), which hands the error to the statement at once.
    this.connection.prependListener('errorMessage', (error: unknown) => this.#errorCame(error));
  }

  /** pg's dispatch, timed: taken before the statement is written, so never after the server has it. */
  _pulseQueryQueue(): void {
    const now = performance.now();
    Reflect.apply(pulseQueryQueue, this, []);
    const active = this.#active();
    if (active && active !== this.#sent) {
      this.#sent = active;
      this.#sentAt = now;
    }
  }

  #active(): unknown {
    return (this as unknown as { activeQuery?: unknown }).activeQuery ?? null;
  }

  #errorCame(error: unknown): void {
    if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== '57014') return;
    const active = this.#active();
    if (active === null || active !== this.#sent) return;
    recordStatementCancel(error, statementCancel(performance.now() - this.#sentAt, this.#limitMs));
  }
}

/** Any fixed number: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 0x6c696e65;

/**
 * Applies the pending migrations, one process at a time: servers starting together against a
 * new database would otherwise each try to create the same tables. With no time limit: an index
 * build on a large table may take long, and a migration cut half-way is rolled back whole (one
 * transaction) and tried again at every start, cut again.
 */
export async function migratePg(url: string): Promise<void> {
  const connectionTimeoutMillis = connectTimeoutMs(url);
  // statement_timeout off from the start, after whatever PGOPTIONS says (the later `-c` wins; `pg` sends
  // PGOPTIONS itself only when no options are given): an inherited one of 1 ms could fire as the SET
  // below ended, and PostgreSQL then cancelled the statement after it "due to user request".
  const options = [process.env.PGOPTIONS, '-c statement_timeout=0'].filter(Boolean).join(' ');
  const client = new CancelTimingClient({ connectionString: url, options, connectionTimeoutMillis, keepAlive: true, keepAliveInitialDelayMillis: PG_KEEPALIVE_MS });
  await client.connect().catch((error: unknown) => {
    throw connectError(error, connectionTimeoutMillis);
  });
  try {
    // Every session time limit off, whatever the connection inherited (PGOPTIONS, ALTER DATABASE/ROLE … SET):
    // the pool's statement with no read limit (`poolUnlimitSql`).
    await client.query(poolUnlimitSql(0));
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // drizzle's own record of the migrations it applied (its default schema and table).
    const recorded = await client.query<{ at: string }>("SELECT created_at::text AS at FROM drizzle.__drizzle_migrations WHERE to_regclass('drizzle.__drizzle_migrations') IS NOT NULL")
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === '42P01') return { rows: [] }; // no such table: nothing migrated yet
        throw error;
      });
    refuseNewerSchema(recorded.rows.map((r) => r.at), newestKnownMigration(migrationsFolder()), `the PostgreSQL database ${databaseName(url)}`);
    await migrate(drizzle(client, { schema }), { migrationsFolder: migrationsFolder() });
  } finally {
    await client.end();
  }
}

/**
 * Whether a newer lineage migrated the database since this process opened it (`newerSchemaSince` of
 * db/client.ts, for PostgreSQL): one statement on the pool.
 */
export async function newerPgSchemaSince(pool: pg.Pool): Promise<SchemaNewer | null> {
  const { rows } = await pool.query<{ count: number; newest: string | null }>('SELECT count(*) AS count, max(created_at)::text AS newest FROM drizzle.__drizzle_migrations');
  const row = rows[0];
  return row === undefined ? null : schemaNewerThan(row, knownMigrations(migrationsFolder()));
}

/**
 * The session time limits every pooled connection turns off as it connects (`openPgDatabase`), so
 * that none is inherited from the database's or the role's own settings (ALTER DATABASE/ROLE … SET)
 * or postgresql.conf, which the URL and PGOPTIONS checks (connect-timeout.ts) cannot see:
 * `idle_session_timeout` ended the connection an index rebuild holds its advisory lock on while it
 * idles (the lock gone, a second rebuild could start), `idle_in_transaction_session_timeout` a
 * transaction idle while it reads blobs from the bucket, `transaction_timeout` any long one; with
 * no read limit (`readMs` 0, no startup setting then) `statement_timeout` and `lock_timeout` too.
 * One simple query after connecting, not the startup packet: there an unknown name (`idle_session_timeout`
 * before PostgreSQL 14, `transaction_timeout` before 17) is a FATAL error, and `pg` sends no 0; the
 * SET reads the names the server knows from pg_settings, whichever server the connection reached.
 */
export function poolUnlimitSql(readMs: number): string {
  const names = ['idle_in_transaction_session_timeout', 'idle_session_timeout', 'transaction_timeout', ...(readMs > 0 ? [] : ['lock_timeout'])];
  const set = `SELECT set_config(name, '0', false) FROM pg_settings WHERE name IN (${names.map((n) => `'${n}'`).join(', ')})`;
  // statement_timeout first, alone, so an inherited one cannot cut the statement turning off the
  // others (one message still: each statement of a simple query is timed on its own).
  return readMs > 0 ? set : `SET statement_timeout = 0; ${set}`;
}

/**
 * Migrates, then opens a pool of `max` connections (default 10), each with TCP keepalive and a read
 * limit of `readTimeoutMs` per statement (0: none; default `DEFAULT_PG_READ_TIMEOUT_MS`): the
 * server's `statement_timeout`, and the client's `query_timeout` a little longer (`pgTimeLimits`).
 */
export async function openPgDatabase(url: string, options: { max?: number; readTimeoutMs?: number } = {}): Promise<PgLineageDb> {
  // `pg` sends PGOPTIONS as every connection's `options`: a time limit there is refused as the URL's (connect-timeout.ts).
  const inherited = pgOptionsProblem(process.env);
  if (inherited !== null) throw new Error(inherited);
  await migratePg(url);
  // The limit is each new connection's own (the Client's), not the pool's: the pool would apply it
  // to a request waiting for a free connection too, and fail requests that are merely queued.
  const connectionTimeoutMillis = connectTimeoutMs(url);
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_PG_READ_TIMEOUT_MS;
  const unlimitSql = poolUnlimitSql(readTimeoutMs);
  const Client = class extends CancelTimingClient {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis });
    }

    // Connected only once the session limits lineage does not want are off (`poolUnlimitSql`): one
    // statement per new connection, none per query. A connection that cannot turn them off is ended
    // and its connect fails (the pool hands it to no one). Both of pg's forms: pg-pool passes a callback.
    override connect(callback?: (error: Error) => void): any {
      const connected = (async () => {
        await super.connect();
        try {
          await super.query(unlimitSql);
        } catch (error) {
          await this.end().catch(() => undefined);
          throw error;
        }
      })();
      if (callback === undefined) return connected;
      connected.then(() => Reflect.apply(callback, undefined, []), (error: Error) => callback(error));
      return undefined;
    }

    // A statement past the client-side limit (the server did not even cancel it) leaves its connection waiting for an answer that may never
    // come, and whatever is sent next (a ROLLBACK, the next request's query once released) would
    // queue behind it: the connection is dropped, its queued statements fail at once, the pool
    // forgets it at release.
    // Every overload of pg's `query` passes through unchanged.
    override query(...args: any[]): any {
      const result: unknown = Reflect.apply(super.query, this, args);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          if (isReadTimeout(error)) this.connection.stream.destroy();
        });
      }
      return result;
    }
  };
  // In the pool's options, so an advisory lock's own connection (advisory-lock.ts) has them too.
  const pool = new pg.Pool({
    connectionString: url, max: options.max ?? 10, Client, keepAlive: true, keepAliveInitialDelayMillis: PG_KEEPALIVE_MS,
    ...pgTimeLimits(readTimeoutMs),
  });
  // An idle connection's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor one checked out: pg-pool listens only while a connection is idle, and `pg` emits 'error' when a
  // connection in use dies (a terminated backend, a restart) even as its query fails. The request using
  // it fails on that query or the next; the pool drops it at release (it is no longer queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { pool, db: drizzle(pool, { schema }), close: () => pool.end() };
}
