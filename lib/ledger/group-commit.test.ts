import { afterEach, describe, expect, it } from 'vitest';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { commitGrouped, groupCommitStats } from './group-commit';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
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
