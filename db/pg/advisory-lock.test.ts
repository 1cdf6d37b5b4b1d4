/** The cross-process lock (advisory-lock.ts) on the run's real PostgreSQL, between separate pools = separate sessions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '@/lib/ledger/errors';
import { freshDatabase, usePostgres } from '@/tests/engines/use-engines';
import { advisoryKey, withAdvisoryLock } from './advisory-lock';
import { openPgDatabase, type PgLineageDb } from './client';

let first: PgLineageDb;
let second: PgLineageDb;
beforeAll(async () => {
  await usePostgres();
  const url = await freshDatabase();
  [first, second] = [await openPgDatabase(url), await openPgDatabase(url)];
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('withAdvisoryLock', () => {
  it('a second holder is refused with busy while the first runs, and gets it once the first is done', async () => {
    const release = deferred();
    const started = deferred();
    const holding = withAdvisoryLock({ db: first, name: 'rebuild' }, async () => {
      started.resolve();
      await release.promise;
      return 'first done';
    });
    await started.promise;
    const refused = await withAdvisoryLock({ db: second, name: 'rebuild' }, async () => 'ran').catch((e: unknown) => e);
    expect(isLedgerError(refused, 'busy')).toBe(true);
    expect(await withAdvisoryLock({ db: second, name: 'another task' }, async () => 'other lock free')).toBe('other lock free');
    release.resolve();
    expect(await holding).toBe('first done');
    expect(await withAdvisoryLock({ db: second, name: 'rebuild' }, async () => 'ran')).toBe('ran');
  });

  it('a failing task releases the lock', async () => {
    await expect(withAdvisoryLock({ db: first, name: 'failing' }, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await withAdvisoryLock({ db: second, name: 'failing' }, async () => 'free')).toBe('free');
  });

  it('a holder whose connection dies (its process killed) leaves the lock free', async () => {
    const release = deferred();
    const started = deferred();
    const holding = withAdvisoryLock({ db: first, name: 'killed' }, async () => {
      started.resolve();
      await release.promise;
    }).catch((e: unknown) => e);
    await started.promise;
    try {
      // The timeout makes pg_terminate_backend wait until the backend has exited (PostgreSQL ≥ 14);
      // without it the call returns at once, and the lock can still be held for a moment.
      const { rows } = await second.pool.query<{ gone: boolean }>(
        'SELECT pg_terminate_backend(pid, 10000) AS gone FROM pg_locks WHERE locktype = $1 AND ((classid::int8 << 32) | objid::int8) = $2::int8',
        ['advisory', advisoryKey('killed')],
      );
      expect(rows.map((r) => r.gone)).toEqual([true]);
      expect(await withAdvisoryLock({ db: second, name: 'killed' }, async () => 'taken over')).toBe('taken over');
    } finally {
      release.resolve();
      await holding;
    }
  });

  it('wait: true queues behind the holder instead of refusing', async () => {
    const order: string[] = [];
    const release = deferred();
    const started = deferred();
    const holding = withAdvisoryLock({ db: first, name: 'queue' }, async () => {
      started.resolve();
      await release.promise;
      order.push('first');
    });
    await started.promise;
    const waiting = withAdvisoryLock({ db: second, name: 'queue', wait: true }, async () => { order.push('second'); });
    setTimeout(release.resolve, 200);
    await Promise.all([holding, waiting]);
    expect(order).toEqual(['first', 'second']);
  });
});
