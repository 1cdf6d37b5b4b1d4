import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { mountTinyDisk, resizeTinyDisk } from '@/tests/server/mounts';
import { commitGrouped, groupCommitStats } from './group-commit';
import { openLedger } from './ledger';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.reverse()) c();
  cleanups = [];
});

function setup() {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const { sqlite } = t.ledger.db;
  sqlite.exec('CREATE TABLE t (v TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO t (v) VALUES (?)');
  const values = () => sqlite.prepare('SELECT v FROM t ORDER BY rowid').pluck().all();
  return { sqlite, insert, values };
}

describe('group commit', () => {
  it('commits works queued in the same turn in one transaction; a failing one rolls back alone', async () => {
    const { sqlite, insert, values } = setup();
    const before = groupCommitStats(sqlite);
    const results = await Promise.allSettled([
      commitGrouped(sqlite, () => insert.run('a')),
      commitGrouped(sqlite, () => {
        insert.run('b');
        throw new Error('stale base');
      }),
      commitGrouped(sqlite, () => insert.run('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('stale base'));
    expect(values()).toEqual(['a', 'c']);
    const after = groupCommitStats(sqlite);
    expect(after.transactions - before.transactions).toBe(1);
    expect(after.commits - before.commits).toBe(2);
  });

  it('a work queued after the flush goes into the next transaction', async () => {
    const { sqlite, insert, values } = setup();
    const before = groupCommitStats(sqlite);
    await commitGrouped(sqlite, () => insert.run('x'));
    await commitGrouped(sqlite, () => insert.run('y'));
    expect(values()).toEqual(['x', 'y']);
    expect(groupCommitStats(sqlite).transactions - before.transactions).toBe(2);
  });

  it('refuses every queued work while another transaction holds the database (an index rebuild)', async () => {
    const { sqlite, insert, values } = setup();
    sqlite.exec('BEGIN IMMEDIATE');
    const results = await Promise.allSettled([commitGrouped(sqlite, () => insert.run('p')), commitGrouped(sqlite, () => insert.run('q'))]);
    sqlite.exec('ROLLBACK');
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/being rebuilt/);
    expect(values()).toEqual([]);
  });
});

describe('group commit on a full disk', () => {
  // SQLite's default page cache (the ingest thread's connection, lib/storage/ingest-worker.ts): the
  // large work's pages spill to the WAL before the commit, and the spill that finds no space makes
  // SQLite roll the whole transaction back by itself. The server's handle (db/client.ts, 64 MiB)
  // keeps them until the COMMIT, which is then what fails.
  it.for([
    { when: 'spilling its pages mid-transaction', cache: -2000 },
    { when: 'at the COMMIT', cache: -65536 },
  ])('fails the whole batch with SQLITE_FULL $when, commits none of it, and commits again once space is freed', async ({ cache }, ctx) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-group-full-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const unmount = mountTinyDisk(dir, 4 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
    cleanups.push(unmount!);
    const ledger = openLedger(dir);
    cleanups.push(() => closeDatabase(ledger.db));
    const { sqlite } = ledger.db;
    sqlite.pragma(`cache_size = ${cache}`);
    sqlite.exec('CREATE TABLE t (v TEXT NOT NULL)');
    const insert = sqlite.prepare('INSERT INTO t (v) VALUES (?)');
    const values = () => sqlite.prepare('SELECT v FROM t WHERE length(v) < 10 ORDER BY rowid').pluck().all();
    const rows = () => sqlite.prepare('SELECT count(*) FROM t').pluck().get();
    // The middle work writes more than the disk holds.
    const large = 'x'.repeat(4000);
    const results = await Promise.allSettled([
      commitGrouped(sqlite, () => insert.run('a')),
      commitGrouped(sqlite, () => {
        for (let i = 0; i < 2000; i++) insert.run(`${large}${i}`);
      }),
      commitGrouped(sqlite, () => insert.run('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_FULL' });
    // 'a' was undone with the transaction, and 'c' did not commit alone after it.
    expect(rows()).toBe(0);
    expect(sqlite.inTransaction).toBe(false);
    expect(resizeTinyDisk(dir, 64 * 1024 * 1024)).toBe(true);
    await commitGrouped(sqlite, () => insert.run('d'));
    expect(values()).toEqual(['d']);
  });
});
