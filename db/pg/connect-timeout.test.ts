/**
 * PostgreSQL that accepts a connection and never answers (a hung server, a proxy with nothing
 * behind it): `pg` waited for ever, and `lineage serve` or `migrate` hung without a word. A
 * connection not made within the URL's `connect_timeout` (libpq's parameter; 10 s when the URL
 * does not say) now fails, in words. The limit is each connection's own: a request queued for a
 * busy pool's connection is not cut by it.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '@/tests/engines/use-engines';
import { runCli } from '@/tests/cli/run-cli';
import { openPgDatabase } from './client';
import { connectTimeoutMs, DEFAULT_PG_CONNECT_TIMEOUT_MS } from './connect-timeout';
import { databaseUrlProblem, scaleOutConfigFrom } from '@/lib/ledger/scale-out-config';
import { openLedger } from '@/lib/ledger/ledger';
import { stateFingerprint, tempDataDir } from '@/tests/server/harness';

describe('connect_timeout in the database URL', () => {
  it('is read in whole seconds, 0 for no limit; the default when absent; anything else is refused with the URL', () => {
    expect(connectTimeoutMs('postgres://u@db.lan:5432/lineage')).toBe(DEFAULT_PG_CONNECT_TIMEOUT_MS);
    expect(DEFAULT_PG_CONNECT_TIMEOUT_MS).toBe(10_000);
    expect(connectTimeoutMs('postgres://u@db.lan:5432/lineage?sslmode=require&connect_timeout=3')).toBe(3000);
    expect(connectTimeoutMs('postgres://u@db.lan/lineage?connect_timeout=0')).toBe(0);
    expect(databaseUrlProblem('postgres://u@db.lan/lineage?connect_timeout=30')).toBeNull();
    for (const bad of ['soon', '-1', '1.5', '']) {
      expect(databaseUrlProblem(`postgres://u@db.lan/lineage?connect_timeout=${bad}`)).toBe(
        `has a connect_timeout that is not a whole number of seconds ("${bad}"; 0 waits for ever, the default is 10)`,
      );
    }
  });
});

describe('connect_timeout read once: the settings check and the driver give the same answer', () => {
  const base = 'postgres://u@db.lan/lineage';
  const cases: [string, number | string][] = [
    ['', 10_000],
    ['?connect_timeout=0', 0],
    ['?connect_timeout=3', 3000],
    // Percent-encoded, as the driver decodes its URL: the check took 3 s, the driver waited 10.
    ['?connect_timeout=%33', 3000],
    ['?connect%5Ftimeout=4', 4000],
    ['?sslmode=require#connect_timeout=3', 10_000],
    ['?connect_timeout=', 'has a connect_timeout that is not a whole number of seconds (""; 0 waits for ever, the default is 10)'],
    ['?connect_timeout=+3', 'has a connect_timeout that is not a whole number of seconds (" 3"; 0 waits for ever, the default is 10)'],
    // Given twice: the check read the first, libpq reads the last; which was meant cannot be told.
    ['?connect_timeout=1&connect_timeout=5', 'gives connect_timeout 2 times: give it once'],
  ];
  for (const [query, answer] of cases) {
    it(`${query || '(none)'} → ${answer}`, () => {
      const url = base + query;
      if (typeof answer === 'number') {
        expect(databaseUrlProblem(url)).toBeNull();
        expect(connectTimeoutMs(url)).toBe(answer);
      } else {
        expect(databaseUrlProblem(url)).toBe(answer);
        expect(() => connectTimeoutMs(url)).toThrow(`the database URL ${answer}`);
      }
    });
  }
});

describe('a time limit in the database URL (ours: statement_timeout, lock_timeout, query_timeout; PostgreSQL\'s idle and transaction limits; also in options)', () => {
  // Measured before, with LINEAGE_DATABASE_READ_SECONDS=3: `statement_timeout=1000` made every
  // connection's limit 1 s; `query_timeout=0` (meant: no limit) failed every statement at once as
  // a read timeout, its connection dropped; `options=-c statement_timeout=700` was overridden on the
  // pool's connections but limited the migrations'. None of it was said. Now refused, in words.
  const base = 'postgres://u@db.lan/lineage';
  const how = 'lineage sets it on every connection from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from the URL';
  const waits = 'PostgreSQL would end lineage\'s connections or transactions that wait by design (an index rebuild holds its lock on an idle connection and reads blobs '
    + 'inside its transaction; a migration may run long): lineage limits each statement itself, from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from the URL';
  const cases: [string, string][] = [
    ['?statement_timeout=1000', `sets statement_timeout: ${how}`],
    ['?sslmode=require&lock_timeout=500', `sets lock_timeout: ${how}`],
    ['?query_timeout=0', `sets query_timeout: ${how}`],
    ['?query%5Ftimeout=100', `sets query_timeout: ${how}`],
    ['?options=-c%20statement_timeout%3D700', `sets statement_timeout in its options: ${how}`],
    ['?options=-c+search_path%3Dx+-clock_timeout%3D1', `sets lock_timeout in its options: ${how}`],
    ['?options=--statement-timeout%3D5', `sets statement_timeout in its options: ${how}`],
    // Accepted silently before: the driver sent idle_in_transaction_session_timeout as a parameter, and
    // every one of them in options (an index rebuild's advisory lock held on an idle connection, lost).
    ['?idle_in_transaction_session_timeout=1000', `sets idle_in_transaction_session_timeout: ${waits}`],
    ['?idle_session_timeout=1000', `sets idle_session_timeout: ${waits}`],
    ['?transaction_timeout=1000', `sets transaction_timeout: ${waits}`],
    ['?options=-c%20idle_session_timeout%3D0', `sets idle_session_timeout in its options: ${waits}`],
    ['?options=--idle-in-transaction-session-timeout%3D5s', `sets idle_in_transaction_session_timeout in its options: ${waits}`],
    ['?options=-ctransaction_timeout%3D1min', `sets transaction_timeout in its options: ${waits}`],
  ];
  for (const [query, problem] of cases) {
    it(`${query} is refused at start, by the settings' check and the driver's setup alike`, () => {
      expect(databaseUrlProblem(base + query)).toBe(problem);
      expect(() => connectTimeoutMs(base + query)).toThrow(`the database URL ${problem}`);
    });
  }

  it('names the setting it came from; other options and parameters are taken', () => {
    expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_URL: `${base}?statement_timeout=5` })).toThrow(`LINEAGE_DATABASE_URL sets statement_timeout: ${how}`);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: `${base}?lock_timeout=5` })).toThrow(`--database-url sets lock_timeout: ${how}`);
    for (const fine of ['?options=-c%20search_path%3Dlineage', '?application_name=lineage&connect_timeout=3', '?options=-c%20work_mem%3D64MB']) {
      expect(databaseUrlProblem(base + fine)).toBeNull();
    }
  });
});

describe('a database host that accepts connections and never answers', () => {
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let port: number;
  beforeAll(async () => {
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    port = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('makes `lineage migrate` fail once connect_timeout has passed, saying so, with nothing written', async () => {
    const dataDir = tempDataDir();
    openLedger(dataDir).db.sqlite.close();
    const before = stateFingerprint(dataDir);
    const run = await runCli(['migrate', '--from-data', dataDir, '--database-url', `postgres://lineage@127.0.0.1:${port}/lineage?connect_timeout=1`, '--blob-url', 's3://lineage-test'], {
      AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    });
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({
      ok: false, code: 'storage_unavailable',
      error: `cannot open the scale-out storage (database 127.0.0.1:${port}/lineage, blobs s3://lineage-test): PostgreSQL did not answer within 1 s (connect_timeout=<seconds> in the URL waits longer)`,
    });
    expect(stateFingerprint(dataDir)).toEqual(before);
  });
});

describe('a pool whose connections are all in use', () => {
  it('keeps a request waiting for one longer than connect_timeout: the limit is on making a connection, not on the queue', async () => {
    const url = new URL(await freshDatabase());
    url.searchParams.set('connect_timeout', '1');
    const db = await openPgDatabase(url.toString(), { max: 1 });
    try {
      const busy = db.pool.query('SELECT pg_sleep(2.5)');
      const queued = db.pool.query('SELECT 1 AS one');
      await busy;
      expect((await queued).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});
