/**
 * Group commit of ingest transactions. Uploads whose blobs become durable in the same turn of the
 * event loop are appended in ONE SQLite transaction, each inside its own savepoint: an upload that
 * fails its checks (a stale base, say) rolls back alone and gets its own error, the others commit
 * together; a failure that ends SQLite's transaction itself (a full disk) fails every upload of
 * the batch with that first error, none committed. A busy server thus pays one BEGIN/COMMIT (and
 * one write of each shared page, such as the index roots) per batch instead of per upload, and an
 * idle one commits each upload at once (the batch closes at the end of the current loop turn). No
 * upload is acknowledged before the transaction holding it has committed.
 */
import type Database from 'better-sqlite3';
import { LedgerError } from './errors';

interface Waiter {
  work: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const queues = new WeakMap<Database.Database, Waiter[]>();
const holds = new WeakMap<Database.Database, number>();

/**
 * Holds this handle's group commits back until the returned release is called: while the ingest
 * thread (offload.ts) writes a large upload on its own connection, commits here wait their turn
 * without blocking the event loop on SQLite's write lock.
 */
export function holdCommits(sqlite: Database.Database): () => void {
  holds.set(sqlite, (holds.get(sqlite) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (holds.get(sqlite) ?? 1) - 1;
    if (left > 0) holds.set(sqlite, left);
    else holds.delete(sqlite);
    if (left <= 0 && queues.has(sqlite)) setImmediate(() => flush(sqlite));
  };
}
const stats = new WeakMap<Database.Database, { transactions: number; commits: number }>();

/** Runs `work` (synchronous statements) in the next group transaction; resolves once it committed. */
export function commitGrouped(sqlite: Database.Database, work: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let queue = queues.get(sqlite);
    if (!queue) {
      queue = [];
      queues.set(sqlite, queue);
      setImmediate(() => flush(sqlite));
    }
    queue.push({ work, resolve, reject });
  });
}

/** How many group transactions and how many works they committed (per database handle). */
export function groupCommitStats(sqlite: Database.Database): { transactions: number; commits: number } {
  return { ...(stats.get(sqlite) ?? { transactions: 0, commits: 0 }) };
}

const DONE = Symbol('done');

function flush(sqlite: Database.Database): void {
  if (holds.has(sqlite)) return; // the release flushes
  const queue = queues.get(sqlite) ?? [];
  queues.delete(sqlite);
  const outcomes: unknown[] = [];
  try {
    if (!sqlite.open) throw new Error('the database is closed');
    // A rebuild of the index in this process holds its transaction open across awaits.
    if (sqlite.inTransaction) throw new LedgerError('busy', 'the history index is being rebuilt in this process; retry when it finishes');
    sqlite.transaction(() => {
      for (const waiter of queue) {
        try {
          // A transaction inside a transaction is a savepoint: a failing work rolls back alone.
          sqlite.transaction(waiter.work)();
          outcomes.push(DONE);
        } catch (error) {
          // SQLite ends the whole transaction by itself on some failures (SQLITE_FULL while a large
          // write spills its pages to the WAL, an I/O error): the works before this one are undone
          // with it, and those after would each commit alone, outside any transaction, while the
          // COMMIT below fails with "no transaction is active" and this first error is lost. The
          // batch fails as a whole with it (a full disk is then the 507 `disk_full`, storage-errors.ts).
          if (!sqlite.inTransaction) throw error;
          outcomes.push(error);
        }
      }
    }).immediate();
  } catch (error) {
    for (const waiter of queue) waiter.reject(error);
    return;
  }
  const counter = stats.get(sqlite) ?? { transactions: 0, commits: 0 };
  counter.transactions += 1;
  counter.commits += outcomes.filter((o) => o === DONE).length;
  stats.set(sqlite, counter);
  queue.forEach((waiter, i) => (outcomes[i] === DONE ? waiter.resolve() : waiter.reject(outcomes[i])));
}
