/**
 * A database a newer ALF Lineage migrated (a migration this version's journal does not know) is
 * refused with `storage_too_new`, on both backends, and left as it was: drizzle's migrator applied
 * nothing to it and this version then wrote into tables whose rules it does not know.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '@/tests/cli/run-cli';
import { freshDatabase, usePostgres } from '@/tests/engines/use-engines';
import { mountReadOnly } from '@/tests/server/mounts';
import { closeDatabase, openDatabase } from './client';
import { migratePg } from './pg/client';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-newer-schema-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A time after every migration any version of this code base has: 2100-01-01. */
const FUTURE = Date.UTC(2100, 0, 1);
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('a data directory a newer lineage migrated', () => {
  it('is refused when opened, and by the CLI, with nothing written', async () => {
    const dataDir = path.join(tmp, 'data');
    closeDatabase(openDatabase(dataDir));
    const file = path.join(dataDir, 'lineage.db');
    // What a newer version leaves: its migration recorded (and its table, which this version would not keep up).
    const newer = new Database(file);
    newer.exec('CREATE TABLE future_rules (x INTEGER)');
    newer.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('f'.repeat(64), FUTURE);
    newer.close();
    const before = sha(file);

    expect(() => openDatabase(dataDir)).toThrow(expect.objectContaining({
      code: 'storage_too_new',
      message: `the database ${file} was migrated by a newer ALF Lineage: it holds 1 migration this version does not know (the newest from 2100-01-01), and this version would write to it what the newer one does not expect`,
    }));

    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Owner\nDana owns billing.\n');
    const home = path.join(tmp, 'home');
    for (const args of [['sync', '-w', ws, '--data', dataDir], ['keys', 'list', '--data', dataDir], ['serve', '--no-ui', '--port', '0', '--data', dataDir]]) {
      const run = await runCli(args, { HOME: home, ALF_HOME: home });
      expect(run.code, `${args[0]}: ${run.stdout}`).toBe(1);
      expect(run.json).toMatchObject({ ok: false, code: 'storage_too_new', error: expect.stringContaining('was migrated by a newer ALF Lineage'), hint: expect.stringContaining('run the newer lineage') });
    }
    expect(sha(file)).toBe(before);
    const after = new Database(file, { readonly: true });
    expect(after.prepare('SELECT count(*) AS n FROM agents').get()).toEqual({ n: 0 });
    after.close();
  });

  it('one migrated up to this version is opened as before', () => {
    const dataDir = path.join(tmp, 'current');
    closeDatabase(openDatabase(dataDir));
    closeDatabase(openDatabase(dataDir));
  });

  it('one on a read-only mount is opened read-only, the migration journal read once per process, not at each open', (ctx) => {
    const dataDir = path.join(tmp, 'read-only');
    closeDatabase(openDatabase(dataDir));
    const unmount = mountReadOnly(dataDir);
    if (!unmount) ctx.skip(); // needs root and mount(8)
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      for (let i = 0; i < 3; i++) {
        const opened = openDatabase(dataDir);
        expect(opened.sqlite.readonly).toBe(true);
        expect(opened.sqlite.prepare('SELECT count(*) AS n FROM agents').get()).toEqual({ n: 0 });
        closeDatabase(opened);
      }
      const journalReads = reads.mock.calls.filter(([file]) => String(file).endsWith(path.join('meta', '_journal.json')));
      expect(journalReads.length).toBeLessThanOrEqual(1);
    } finally {
      reads.mockRestore();
      unmount!();
    }
  });
});

describe('a PostgreSQL database a newer lineage migrated', () => {
  it('is refused before any migration runs, and one up to date is not', async () => {
    await usePostgres();
    const url = await freshDatabase();
    await migratePg(url);
    await expect(migratePg(url)).resolves.toBeUndefined();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', ['f'.repeat(64), FUTURE]);
      const count = async () => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations')).rows[0]!.n);
      const before = await count();
      const u = new URL(url);
      await expect(migratePg(url)).rejects.toMatchObject({
        code: 'storage_too_new',
        message: `the PostgreSQL database ${u.host}${u.pathname} was migrated by a newer ALF Lineage: it holds 1 migration this version does not know (the newest from 2100-01-01), and this version would write to it what the newer one does not expect`,
      });
      expect(await count()).toBe(before);
    } finally {
      await client.end();
    }
  });
});
