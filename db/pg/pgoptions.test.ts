/**
 * Time limits a migration or a pooled connection inherits from outside the URL: `PGOPTIONS` (which
 * `pg` sends as each connection's `options`) and the database's own settings (ALTER DATABASE … SET).
 * Measured before, on a new database: `PGOPTIONS='-c statement_timeout=1'` made `migratePg` fail
 * half-way with 57014 (canceling statement due to statement timeout), and so every start; a database
 * whose own statement_timeout was 1 ms (ALTER DATABASE … SET) the same. On a pooled connection the
 * pool's own `statement_timeout` (startup packet) overrode PGOPTIONS' one, but a `lock_timeout` there
 * was taken without a word (`-c lock_timeout=7` → `SHOW lock_timeout` 7ms beside our 2s), as was any
 * with LINEAGE_DATABASE_READ_SECONDS=0 (no startup setting then). Now the migrations turn every
 * session limit off, and PGOPTIONS' time limits are refused at start, as the URL's are.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaleOutConfigFrom } from '@/lib/ledger/scale-out-config';
import { freshDatabase } from '@/tests/engines/use-engines';
import { migratePg, openPgDatabase } from './client';
import { pgOptionsProblem } from './connect-timeout';

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.PGOPTIONS;
});
afterEach(() => {
  if (saved === undefined) delete process.env.PGOPTIONS;
  else process.env.PGOPTIONS = saved;
});

/**
 * The tables of `url`'s public schema. The connection's own startup option lifts a database's
 * statement_timeout of 1 ms before any statement runs: a `SET statement_timeout = 0` sent first ran
 * under that limit itself and was cancelled on a loaded machine.
 */
async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, options: '-c statement_timeout=0' });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    return rows.map((r) => r.t);
  } finally {
    await client.end();
  }
}

describe('the migrations run without any inherited time limit', () => {
  it('PGOPTIONS with statement_timeout=1 ms, lock_timeout and idle_in_transaction_session_timeout of 1 ms: every migration applied', async () => {
    const url = await freshDatabase();
    process.env.PGOPTIONS = '-c statement_timeout=1 -c lock_timeout=1 -c idle_in_transaction_session_timeout=1';
    await migratePg(url);
    delete process.env.PGOPTIONS;
    expect(await tables(url)).toContain('record_versions');
    expect(await tables(url)).toContain('deleted_agents');
  });

  it('the database\'s own statement_timeout (ALTER DATABASE … SET) of 1 ms: every migration applied', async () => {
    const url = await freshDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const name = new URL(url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} SET statement_timeout = 1`);
    await admin.end();
    await migratePg(url);
    expect(await tables(url)).toContain('deleted_agents');
  });
});

describe('a time limit in PGOPTIONS for the serving pool', () => {
  const how = 'lineage sets it on every connection from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from PGOPTIONS';
  const waits = 'PostgreSQL would end lineage\'s connections or transactions that wait by design (an index rebuild holds its lock on an idle connection and reads blobs '
    + 'inside its transaction; a migration may run long): lineage limits each statement itself, from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from PGOPTIONS';
  const cases: [string, string | null][] = [
    ['-c statement_timeout=1', `PGOPTIONS sets statement_timeout: ${how}`],
    ['-c search_path=public -clock_timeout=5s', `PGOPTIONS sets lock_timeout: ${how}`],
    ['--idle-in-transaction-session-timeout=1000', `PGOPTIONS sets idle_in_transaction_session_timeout: ${waits}`],
    ['-c idle_session_timeout=0', `PGOPTIONS sets idle_session_timeout: ${waits}`],
    ['-c transaction_timeout=10s', `PGOPTIONS sets transaction_timeout: ${waits}`],
    ['-c search_path=public', null],
    ['', null],
  ];
  for (const [options, problem] of cases) {
    it(`${options || '(empty)'} → ${problem === null ? 'taken' : 'refused'}`, () => {
      expect(pgOptionsProblem({ PGOPTIONS: options })).toBe(problem);
      const env = { PGOPTIONS: options, LINEAGE_DATABASE_URL: 'postgres://u@db.lan/lineage' };
      if (problem === null) expect(scaleOutConfigFrom(env).databaseUrl).toBe(env.LINEAGE_DATABASE_URL);
      else expect(() => scaleOutConfigFrom(env)).toThrow(problem);
    });
  }

  it('is refused by openPgDatabase too, before migrating, with nothing written; without a database URL it is not looked at', async () => {
    expect(scaleOutConfigFrom({ PGOPTIONS: '-c statement_timeout=1' }).databaseUrl).toBeNull();
    const url = await freshDatabase();
    process.env.PGOPTIONS = '-c statement_timeout=1';
    await expect(openPgDatabase(url, { readTimeoutMs: 0 })).rejects.toThrow(`PGOPTIONS sets statement_timeout: ${how}`);
    delete process.env.PGOPTIONS;
    expect(await tables(url)).toEqual([]);
  });
});
