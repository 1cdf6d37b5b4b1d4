/**
 * A CLI command that talks to the scale-out storage's PostgreSQL itself (the real bin, a child
 * process, against the run's real PostgreSQL 15 + radosgw) and has a statement cancelled or its
 * connection ended. Before: the raw `pg` error (55P03, 57014, 57P01) came out as `internal_error`
 * with a stack. Now in words with the codes a server answers (`busy`, `database_timeout`), a hint
 * saying what to do, exit 1, no stack, nothing of the cancelled transaction kept:
 * - `lineage index --rebuild` waiting past the pool's lock_timeout for the agents' rows another
 *   session holds (55P03): `busy`, the index as it was; once the holder commits, the rebuild runs.
 * - `lineage keys create` whose INSERT runs past LINEAGE_DATABASE_READ_SECONDS (a trigger that
 *   sleeps, as a slow disk or a huge table would: 57014): `database_timeout`, no key stored.
 * - `lineage index --rebuild` whose connection an operator ends (pg_terminate_backend, 57P01) or whose
 *   statement an operator cancels (pg_cancel_backend, 57014 "due to user request"): `busy` in words.
 * - `lineage sync` into the scale-out storage whose upload waits for another session's lock on its
 *   agent (55P03): `busy` with the sync's hint (nothing stored, run it again), then the same sync goes through.
 * - The operator's cancel and the time limit again on a database whose messages are German
 *   (lc_messages=de_DE.UTF-8): the same codes. Before, the cancel ("storniere Anfrage wegen
 *   Benutzeraufforderung") was told by its English words and came out as `database_timeout`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { dumpPg } from '@/lib/storage/testing/dumps';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { snapshotBytes } from '../server/archives';
import { runCli, type CliRun } from './run-cli';

let tmp = '';
let databaseUrl = '';
let base: Record<string, string> = {};
let storage: LineageStorage;
let db: PgLineageDb;
/** Another session: holds locks, ends or cancels the CLI's backends. */
let other: pg.Client;
/** A session that looks at pg_stat_activity. */
let watcher: pg.Client;
let agentId = '';
let otherPid = 0;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-pg-errors-'));
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  databaseUrl = url;
  base = { ...scaleOutEnv(url, bucket, settings), LINEAGE_DATA: path.join(tmp, 'no-data-here') };
  storage = await openStorage(storageConfigFrom(base));
  db = await openPgDatabase(url);
  other = new pg.Client({ connectionString: url });
  await other.connect();
  watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  otherPid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  agentId = '5d0c7a4e-1b2f-4c3d-8e9f-0a1b2c3d4e5f';
  await storage.registerAgent({ id: agentId, name: 'held', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storage.ingestSnapshot({ agentId, bytes: await snapshotBytes(agentId), now: new Date() });
}, 120_000);

afterAll(async () => {
  await other?.end();
  await watcher?.end();
  await storage?.close();
  await db?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** A failure as the CLI must give it: exit 1, one JSON object, the error and hint in words, no stack. */
function expectWords(run: CliRun, code: string): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.json.code, run.stderr).toBe(code);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr).toMatch(/(^|\n)error: .+\nhint: .+\n$/);
  expect(typeof run.json.hint).toBe('string');
}

/** The CLI's backends in this database waiting for a lock (polled until there is one: no timing). */
async function waitingBackend(): Promise<number> {
  for (;;) {
    // Not `other`'s session: inside its transaction pg_stat_activity is read once and kept.
    const { rows } = await watcher.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND pid <> pg_backend_pid() AND pid <> $1 AND wait_event_type = 'Lock'`, [otherPid]);
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `lineage <args>` started as a child; its result once it ends. */
function startCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/lineage.mjs'), ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown> }));
  });
}

describe('a CLI command on the scale-out storage whose PostgreSQL statement is cancelled or whose connection ends', () => {
  it('index --rebuild waiting for rows another session holds: busy in words, the index unchanged; once released it rebuilds', async () => {
    const before = await dumpPg(db);
    await other.query('BEGIN');
    await other.query('SELECT id FROM agents FOR UPDATE');
    let run: CliRun;
    try {
      run = await runCli(['index', '--rebuild'], { ...base, LINEAGE_DATABASE_READ_SECONDS: '2' });
    } finally {
      await other.query('COMMIT');
    }
    expectWords(run, 'busy');
    expect(run.json.error).toMatch(/waited too long for a lock/);
    expect(run.json.hint).toMatch(/run the same command again/);
    expect(await dumpPg(db)).toEqual(before);
    const again = await runCli(['index', '--rebuild'], { ...base, LINEAGE_DATABASE_READ_SECONDS: '2' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ ok: true, entries: 1 });
  }, 120_000);

  it('keys create whose statement runs past LINEAGE_DATABASE_READ_SECONDS: database_timeout in words, naming the setting; no key stored', async () => {
    const keysBefore = await storage.listApiKeys();
    await other.query(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
      CREATE TRIGGER slow BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION slow_insert()`);
    let run: CliRun;
    try {
      run = await runCli(['keys', 'create', '--name', 'slow'], { ...base, LINEAGE_DATABASE_READ_SECONDS: '1' });
    } finally {
      await other.query('DROP TRIGGER slow ON api_keys; DROP FUNCTION slow_insert()');
    }
    expectWords(run, 'database_timeout');
    expect(run.json.error).toMatch(/ran past its time limit \(LINEAGE_DATABASE_READ_SECONDS=1\)/);
    expect(run.json.hint).toMatch(/LINEAGE_DATABASE_READ_SECONDS/);
    expect(await storage.listApiKeys()).toEqual(keysBefore);
  }, 120_000);

  it('index --rebuild whose connection an operator ends (pg_terminate_backend): busy in words, the index unchanged', async () => {
    const before = await dumpPg(db);
    await other.query('BEGIN');
    await other.query('SELECT id FROM agents FOR UPDATE');
    let run: CliRun;
    try {
      const running = startCli(['index', '--rebuild'], { ...base, LINEAGE_DATABASE_READ_SECONDS: '0' });
      await other.query('SELECT pg_terminate_backend($1)', [await waitingBackend()]);
      run = await running;
    } finally {
      await other.query('COMMIT');
    }
    expectWords(run, 'busy');
    expect(run.json.error).toMatch(/database/);
    expect(await dumpPg(db)).toEqual(before);
  }, 120_000);

  it('index --rebuild whose statement an operator cancels (pg_cancel_backend): said so, not as a time limit', async () => {
    await other.query('BEGIN');
    await other.query('SELECT id FROM agents FOR UPDATE');
    let run: CliRun;
    try {
      const running = startCli(['index', '--rebuild'], { ...base, LINEAGE_DATABASE_READ_SECONDS: '0' });
      await other.query('SELECT pg_cancel_backend($1)', [await waitingBackend()]);
      run = await running;
    } finally {
      await other.query('COMMIT');
    }
    expectWords(run, 'busy');
    expect(run.json.error).toMatch(/cancelled/);
    expect(run.json.error).not.toMatch(/time limit/);
  }, 120_000);

  it('sync into the scale-out storage waiting for its agent\'s row another session holds: busy in words, nothing stored; then the same sync goes through', async () => {
    const workspace = path.join(tmp, 'ws');
    const vars = { ...base, LINEAGE_DATABASE_READ_SECONDS: '2', ALF_HOME: path.join(tmp, 'alf') };
    await fs.mkdir(workspace, { recursive: true });
    await fs.writeFile(path.join(workspace, 'MEMORY.md'), '# Memory\n\n## One\nThe relay is 10.9.0.1.\n');
    const first = await runCli(['sync', '-w', workspace], vars);
    expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
    const id = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
    await fs.writeFile(path.join(workspace, 'MEMORY.md'), '# Memory\n\n## One\nThe relay is 10.9.0.2.\n');
    await other.query('BEGIN');
    await other.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [id]);
    let run: CliRun;
    try {
      run = await runCli(['sync', '-w', workspace], vars);
    } finally {
      await other.query('COMMIT');
    }
    expectWords(run, 'busy');
    expect(run.json.error).toMatch(/waited too long for a lock/);
    expect(run.json.hint).toMatch(/run the same sync again/);
    expect((await storage.listEntries({ agentId: id })).map((e) => e.seq)).toEqual([0]);
    const again = await runCli(['sync', '-w', workspace], vars);
    expect(again.json, again.stderr).toMatchObject({ ok: true, sequence: 1 });
  }, 120_000);
});

describe('the same on a database whose PostgreSQL messages are German (lc_messages=de_DE.UTF-8)', () => {
  let germanBase: Record<string, string> = {};
  let germanStorage: LineageStorage;
  let holder: pg.Client;
  let looker: pg.Client;
  let holderPid = 0;

  beforeAll(async () => {
    const [url, { bucket, settings }] = await Promise.all([freshDatabase({ lcMessages: 'de_DE.UTF-8' }), freshBucket()]);
    germanBase = { ...scaleOutEnv(url, bucket, settings), LINEAGE_DATA: path.join(tmp, 'no-data-here') };
    germanStorage = await openStorage(storageConfigFrom(germanBase));
    holder = new pg.Client({ connectionString: url });
    await holder.connect();
    looker = new pg.Client({ connectionString: url });
    await looker.connect();
    holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await germanStorage.registerAgent({ id: agentId, name: 'held', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await germanStorage.ingestSnapshot({ agentId, bytes: await snapshotBytes(agentId), now: new Date() });
  }, 120_000);

  afterAll(async () => {
    await holder?.end();
    await looker?.end();
    await germanStorage?.close();
  });

  it.each(['0', '600'])('index --rebuild whose statement an operator cancels, LINEAGE_DATABASE_READ_SECONDS=%s: busy, not a time limit', async (seconds) => {
    // The server does speak German.
    await expect(looker.query('SELECT 1/0')).rejects.toThrow('Division durch Null');
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM agents FOR UPDATE');
    let run: CliRun;
    try {
      const running = startCli(['index', '--rebuild'], { ...germanBase, LINEAGE_DATABASE_READ_SECONDS: seconds });
      let pid = 0;
      while (pid === 0) {
        const { rows } = await looker.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
          AND pid <> pg_backend_pid() AND pid <> $1 AND wait_event_type = 'Lock'`, [holderPid]);
        pid = rows[0]?.pid ?? 0;
      }
      await holder.query('SELECT pg_cancel_backend($1)', [pid]);
      run = await running;
    } finally {
      await holder.query('COMMIT');
    }
    expectWords(run, 'busy');
    expect(run.json.error).toMatch(/an operator cancelled/);
    expect(run.json.error).not.toMatch(/time limit/);
  }, 120_000);

  it('keys create whose statement runs past LINEAGE_DATABASE_READ_SECONDS: database_timeout, as in English', async () => {
    await holder.query(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
      CREATE TRIGGER slow BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION slow_insert()`);
    let run: CliRun;
    try {
      run = await runCli(['keys', 'create', '--name', 'slow'], { ...germanBase, LINEAGE_DATABASE_READ_SECONDS: '1' });
    } finally {
      await holder.query('DROP TRIGGER slow ON api_keys; DROP FUNCTION slow_insert()');
    }
    expectWords(run, 'database_timeout');
    expect(run.json.error).toMatch(/ran past its time limit \(LINEAGE_DATABASE_READ_SECONDS=1\)/);
    expect(await germanStorage.listApiKeys()).toEqual([]);
  }, 120_000);
});
