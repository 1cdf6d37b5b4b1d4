/**
 * Session time limits a pooled connection would inherit from the database's own settings (ALTER
 * DATABASE … SET; a role's or postgresql.conf's the same), which the URL and PGOPTIONS checks cannot
 * see, on the run's real PostgreSQL 15. Measured before: with idle_session_timeout and
 * idle_in_transaction_session_timeout of 200 ms set on the database, a pooled connection idle 1 s
 * was ended (57P05: an index rebuild's advisory lock, held on such a connection, gone with it) and a
 * transaction idle 1 s was ended (25P03: its COMMIT failed, what it wrote lost); with
 * LINEAGE_DATABASE_READ_SECONDS=0 (no limit) the database's statement_timeout still cancelled a
 * statement. Now each pooled connection turns them off as it connects (client.ts `poolUnlimitSql`).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isLedgerError } from '@/lib/ledger/errors';
import { freshDatabase } from '@/tests/engines/use-engines';
import { withAdvisoryLock } from './advisory-lock';
import { openPgDatabase, type PgLineageDb } from './client';

const opened: PgLineageDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** A new database whose own settings are `settings` (ALTER DATABASE … SET), its URL. */
async function databaseSetting(settings: Record<string, string>): Promise<string> {
  const url = await freshDatabase();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = new URL(url).pathname.slice(1);
  for (const [key, value] of Object.entries(settings)) await admin.query(`ALTER DATABASE ${name} SET ${key} = '${value}'`);
  await admin.end();
  return url;
}

async function open(url: string, readTimeoutMs: number): Promise<PgLineageDb> {
  const db = await openPgDatabase(url, { readTimeoutMs, max: 2 });
  opened.push(db);
  return db;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const show = async (client: pg.ClientBase | pg.Pool, name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name];

describe('the database\'s own idle_session_timeout and idle_in_transaction_session_timeout (200 ms)', () => {
  it('a plain connection to it has them (the settings are in force)', async () => {
    const url = await databaseSetting({ idle_session_timeout: '200ms', idle_in_transaction_session_timeout: '200ms' });
    const plain = new pg.Client({ connectionString: url });
    const ended = new Promise<Error>((resolve) => plain.on('error', resolve));
    await plain.connect();
    expect(await show(plain, 'idle_session_timeout')).toBe('200ms');
    expect((await ended as Error & { code?: string }).code).toBe('57P05');
    await plain.end().catch(() => undefined);
  });

  it('a pooled connection has them off: idle 1 s it stays, a transaction idle 1 s inside commits', async () => {
    const url = await databaseSetting({ idle_session_timeout: '200ms', idle_in_transaction_session_timeout: '200ms' });
    const db = await open(url, 30_000);
    const client = await db.pool.connect();
    try {
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await sleep(1000);
      expect((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid).toBe(pid);
      await client.query('CREATE TABLE kept (x int)');
      await client.query('BEGIN');
      await client.query('INSERT INTO kept VALUES (1)');
      await sleep(1000);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await db.pool.query<{ n: number }>('SELECT count(*) AS n FROM kept')).rows[0]!.n).toBe(1);
    expect(await show(db.pool, 'idle_session_timeout')).toBe('0');
    expect(await show(db.pool, 'idle_in_transaction_session_timeout')).toBe('0');
    // The pool's own limits stay.
    expect(await show(db.pool, 'statement_timeout')).toBe('30s');
  });

  it('a lock held on a connection of its own idle 1 s is still held: a second holder is refused busy', async () => {
    const url = await databaseSetting({ idle_session_timeout: '200ms', idle_in_transaction_session_timeout: '200ms' });
    const [first, second] = [await open(url, 30_000), await open(url, 30_000)];
    const result = await withAdvisoryLock({ db: first, name: 'rebuild', ownConnection: true }, async () => {
      await sleep(1000);
      const refused = await withAdvisoryLock({ db: second, name: 'rebuild', ownConnection: true }, async () => 'ran').catch((e: unknown) => e);
      expect(isLedgerError(refused, 'busy')).toBe(true);
      return 'held';
    });
    expect(result).toBe('held');
  });
});

describe('with no read limit (LINEAGE_DATABASE_READ_SECONDS=0), the database\'s statement_timeout and lock_timeout (100 ms)', () => {
  it('are off on a pooled connection: a statement of 0.5 s finishes', async () => {
    const url = await databaseSetting({ statement_timeout: '100ms', lock_timeout: '100ms' });
    const db = await open(url, 0);
    await expect(db.pool.query('SELECT pg_sleep(0.5)')).resolves.toBeDefined();
    expect(await show(db.pool, 'statement_timeout')).toBe('0');
    expect(await show(db.pool, 'lock_timeout')).toBe('0');
  });
});
