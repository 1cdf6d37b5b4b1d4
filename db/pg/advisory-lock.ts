/**
 * Cross-process mutual exclusion on PostgreSQL (issue 21 §3: one rebuild of the index at a time,
 * whichever server process starts it). A session-level advisory lock on one connection held for
 * the whole task: the server releases it when that connection ends, so a process killed mid-task
 * (kill -9) never leaves the lock behind.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { PgLineageDb } from './client';
import { connectTimeoutMs } from './connect-timeout';
import { LedgerError } from '../../lib/ledger/errors';

/** The lock's 64-bit key: the first 8 bytes of sha256(`lineage:` + name), as PostgreSQL's signed int8. */
export function advisoryKey(name: string): string {
  return createHash('sha256').update(`lineage:${name}`).digest().readBigInt64BE(0).toString();
}

/** A lock's connection: one of the pool's, or a connection of its own, closed after. */
async function lockConnection(pool: pg.Pool, own: boolean): Promise<{ client: pg.ClientBase; done(error?: Error): Promise<void> }> {
  if (!own) {
    const client = await pool.connect();
    return { client, done: async (error) => client.release(error) };
  }
  // The pool's connections are each given the URL's connect_timeout (client.ts): so is this one. And
  // made by the pool's own Client (client.ts `openPgDatabase`), which turns off the session limits a
  // database or role may set (an idle_session_timeout would end this connection, and the lock with it).
  const Client = (pool.options as { Client?: typeof pg.Client }).Client ?? pg.Client;
  const client = new Client({ ...pool.options, connectionTimeoutMillis: connectTimeoutMs(pool.options.connectionString ?? '') });
  client.on('error', () => undefined);
  await client.connect();
  return { client, done: () => client.end().catch(() => undefined) };
}

/**
 * Runs `task` holding the lock `name`. `wait: false` (the default) refuses at once with
 * `LedgerError('busy')` when another session holds it; `wait: true` queues behind it.
 * `ownConnection`: the lock is held on a connection opened for it rather than one of the pool's, so
 * many tasks waiting for the lock, or holding it while they use the pool, never take every pooled
 * connection from the tasks they wait for (a deadlock of the pool).
 */
export async function withAdvisoryLock<T>(
  params: { db: Pick<PgLineageDb, 'pool'>; name: string; wait?: boolean; ownConnection?: boolean },
  task: () => Promise<T>,
): Promise<T> {
  const { client, done } = await lockConnection(params.db.pool, params.ownConnection === true);
  // A checked-out client's connection error (the server ended the session) is an 'error' event
  // that would crash the process; the next query on it fails instead, and the lock is gone with it.
  const ignore = () => undefined;
  client.on('error', ignore);
  const key = advisoryKey(params.name);
  let held = false;
  try {
    if (params.wait) {
      await client.query('SELECT pg_advisory_lock($1::int8)', [key]);
      held = true;
    } else {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int8) AS ok', [key]);
      held = rows[0]?.ok === true;
      if (!held) throw new LedgerError('busy', `${params.name} is already running in another process; retry when it finishes`);
    }
    return await task();
  } finally {
    client.off('error', ignore);
    if (held) {
      // A failed unlock means the connection is gone, and the lock with it; the client is not reused.
      await client.query('SELECT pg_advisory_unlock($1::int8)', [key]).then(() => done(), (error: Error) => done(error));
    } else {
      await done();
    }
  }
}
