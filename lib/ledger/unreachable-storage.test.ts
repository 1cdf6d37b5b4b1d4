/**
 * PostgreSQL's own errors (a real PostgreSQL 15, as `pg` gives them) for a session the database ended
 * or a statement it cancelled, read as a served request's answer: a session ended by the database's
 * idle_session_timeout (57P05), by its idle_in_transaction_session_timeout (25P03: the transaction rolled
 * back) or by an operator (pg_terminate_backend, 57P01) is `busy` (retry: the
 * next connection is made), as is a statement an operator cancelled (pg_cancel_backend: 57014 "due to
 * user request"); only a statement past its statement_timeout is `database_timeout`. Before, 57P05
 * and 25P03 were no known error (a 500 internal error) and an operator's cancel was told as a time limit.
 * The same from a server whose messages are German (a database with lc_messages=de_DE.UTF-8), through
 * lineage's own pool: before, the cancel was told apart by its English words, and an operator's
 * cancel ("storniere Anfrage wegen Benutzeraufforderung") was answered `database_timeout`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { freshDatabase } from '@/tests/engines/use-engines';
import { DATABASE_TIMEOUT_WORDS, unreachableStorageError } from './unreachable-storage';

let url = '';
let admin: pg.Client;
beforeAll(async () => {
  url = await freshDatabase();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.end();
});

/** A connected session, its backend pid, and the first error it is told of (a query's or the connection's own). */
async function session(): Promise<{ client: pg.Client; pid: number; ended: Promise<Error> }> {
  const client = new pg.Client({ connectionString: url });
  const ended = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return { client, pid, ended };
}

/**
 * A backend inside pg_sleep, where a cancel interrupts it. `state = 'active'` is not enough: a query
 * with parameters is active from its Parse message on, and a cancel that arrives while the backend
 * reads the Bind/Execute that follow is dropped (PostgreSQL ignores a cancel while it reads a command),
 * so the sleep ran its 60 s and the test timed out (once, in CI on a loaded machine). Measured on an
 * idle one: 2 of 300 backends seen active were not yet sleeping when the cancel was sent.
 */
const inSleep = "state = 'active' AND wait_event = 'PgSleep'";

const answer = (error: unknown) => {
  const mapped = unreachableStorageError(error);
  return [(error as { code?: string }).code, mapped?.code, mapped?.message];
};

describe('PostgreSQL ending a session or cancelling a statement', () => {
  it('a session ended by idle_session_timeout (57P05): busy, the database could not be reached', async () => {
    const { client, ended } = await session();
    await client.query("SET idle_session_timeout = '200ms'");
    expect(answer(await ended)).toEqual(['57P05', 'busy', 'the database could not be reached; retry shortly']);
    await client.end().catch(() => undefined);
  });

  it('a session ended by idle_in_transaction_session_timeout (25P03): busy; its COMMIT fails busy too, nothing of the transaction kept', async () => {
    await admin.query('CREATE TABLE IF NOT EXISTS idle_written (x int)');
    const { client, ended } = await session();
    await client.query("SET idle_in_transaction_session_timeout = '200ms'");
    await client.query('BEGIN');
    await client.query('INSERT INTO idle_written VALUES (1)');
    expect(answer(await ended)).toEqual(['25P03', 'busy', 'the database could not be reached; retry shortly']);
    const commit = await client.query('COMMIT').then(() => null, (error: unknown) => error);
    expect(unreachableStorageError(commit)?.code).toBe('busy');
    expect((await admin.query<{ n: string }>('SELECT count(*)::text AS n FROM idle_written')).rows[0]!.n).toBe('0');
    await client.end().catch(() => undefined);
  });

  it('a session an operator ends (pg_terminate_backend, 57P01) while it waits: busy', async () => {
    const { client, pid } = await session();
    const failed = client.query('SELECT pg_sleep(60)').then(() => null, (error: unknown) => error);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    expect(answer(await failed)).toEqual(['57P01', 'busy', 'the database could not be reached; retry shortly']);
    await client.end().catch(() => undefined);
  });

  it('a statement an operator cancels (pg_cancel_backend): busy in its own words, not a time limit; one past statement_timeout: database_timeout', async () => {
    const { client, pid } = await session();
    try {
      const cancelled = client.query('SELECT pg_sleep(60)').then(() => null, (error: unknown) => error);
      // Cancelled once it sleeps (see `inSleep`).
      for (;;) {
        const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND ${inSleep}`, [pid]);
        if (rows.length > 0) break;
      }
      await admin.query('SELECT pg_cancel_backend($1)', [pid]);
      expect(answer(await cancelled)).toEqual(['57014', 'busy', 'an operator cancelled a database statement (pg_cancel_backend); what its transaction wrote was rolled back; retry shortly']);
      await client.query("SET statement_timeout = '100ms'");
      const timedOut = await client.query('SELECT pg_sleep(60)').then(() => null, (error: unknown) => error);
      expect(answer(timedOut)).toEqual(['57014', 'database_timeout', DATABASE_TIMEOUT_WORDS]);
    } finally {
      await client.end();
    }
  });
});

describe('a server speaking German (lc_messages=de_DE.UTF-8): a statement of lineage\'s pool cancelled', () => {
  let german = '';
  let watcher: pg.Client;
  const pools: PgLineageDb[] = [];
  beforeAll(async () => {
    german = await freshDatabase({ lcMessages: 'de_DE.UTF-8' });
    watcher = new pg.Client({ connectionString: german });
    await watcher.connect();
  }, 120_000);
  afterAll(async () => {
    await watcher?.end();
    await Promise.all(pools.map((pool) => pool.close()));
  });

  async function pool(readTimeoutMs: number): Promise<PgLineageDb> {
    const opened = await openPgDatabase(german, { readTimeoutMs, max: 1 });
    pools.push(opened);
    return opened;
  }

  /** The backend sleeping in pg_sleep for the pool (see `inSleep`). */
  async function sleeping(): Promise<number> {
    for (;;) {
      const { rows } = await watcher.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${inSleep}`,
      );
      if (rows[0]) return rows[0].pid;
    }
  }

  const byOperator = 'an operator cancelled a database statement (pg_cancel_backend); what its transaction wrote was rolled back; retry shortly';

  it.each([
    ['a read limit (LINEAGE_DATABASE_READ_SECONDS=600), a simple query', 600_000, (db: PgLineageDb) => db.pool.query('SELECT pg_sleep(60)')],
    ['a read limit, a query with parameters (the extended protocol, as drizzle sends)', 600_000, (db: PgLineageDb) => db.pool.query('SELECT pg_sleep($1)', [60])],
    ['no read limit (LINEAGE_DATABASE_READ_SECONDS=0)', 0, (db: PgLineageDb) => db.pool.query('SELECT pg_sleep(60)')],
  ])('an operator\'s pg_cancel_backend, %s: busy in its own words, not a time limit', async (_, readTimeoutMs, sleep) => {
    const db = await pool(readTimeoutMs);
    const failed = sleep(db).then(() => null, (error: unknown) => error);
    await watcher.query('SELECT pg_cancel_backend($1)', [await sleeping()]);
    const error = await failed;
    // The server's own words are German: nothing English to read.
    expect((error as Error).message).toBe('storniere Anfrage wegen Benutzeraufforderung');
    expect(answer(error)).toEqual(['57014', 'busy', byOperator]);
    // The pool's connection stays usable.
    expect((await db.pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('a statement past the pool\'s statement_timeout: database_timeout, as from an English server', async () => {
    const db = await pool(2000);
    for (const run of [() => db.pool.query('SELECT pg_sleep(60)'), () => db.pool.query('SELECT pg_sleep($1)', [60])]) {
      const error = await run().then(() => null, (e: unknown) => e);
      expect((error as Error).message).toBe('storniere Anfrage wegen Zeitüberschreitung der Anfrage');
      expect(answer(error)).toEqual(['57014', 'database_timeout', DATABASE_TIMEOUT_WORDS]);
    }
  });
});
