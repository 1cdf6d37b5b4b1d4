/**
 * A statement waiting for a lock that another session's legitimately long transaction holds (another
 * server process's ingest holding the agent's row, a rebuild, an advisory lock). Measured before
 * (LINEAGE_DATABASE_READ_SECONDS=2): the client-side limit cut it after 2 s as if the database had
 * gone silent — the request answered "the database could not be reached", the connection destroyed —
 * while its backend went on waiting for the lock with its transaction open (seen in
 * pg_stat_activity 3 s later: `active`, wait_event_type `Lock`, holding the rows it had inserted)
 * until the holder finished. Now PostgreSQL's own `lock_timeout` (9/10 of the read limit, sent in each
 * connection's startup packet beside `statement_timeout`) cancels it (55P03): the transaction is
 * rolled back at once, the connection stays in the pool, the request is a 503 busy with Retry-After,
 * and the client-side limit, a little longer, is left for a server that stopped answering
 * (silent-database.test.ts). A statement merely slow, waiting for no lock, was answered the same
 * 503 busy (its `statement_timeout`, 57014), inviting a retry that would be as slow: it is now a 504
 * `database_timeout`, without Retry-After.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_TIMEOUT_WORDS, unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { createLineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { inTransaction } from '@/lib/storage/pg/sql';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { snapshotBytes } from '@/tests/server/archives';
import { call, tempDataDir } from '@/tests/server/harness';
import { advisoryKey, withAdvisoryLock } from './advisory-lock';
import { openPgDatabase } from './client';
import { isReadTimeout } from './connect-timeout';

const BUSY_WORDS = 'the database cancelled a statement that waited too long for a lock another request or process holds; retry shortly';

let url: string;
/** Another session: holds locks, and looks at pg_stat_activity. */
let other: pg.Client;
beforeEach(async () => {
  url = await freshDatabase();
  other = new pg.Client({ connectionString: url });
  await other.connect();
});
afterEach(async () => {
  await other.end();
});

/** The backends of this database other than `other`'s: what each is doing. */
async function backends(): Promise<{ pid: number; state: string; lock: boolean }[]> {
  const { rows } = await other.query(`SELECT pid, state, wait_event_type IS NOT DISTINCT FROM 'Lock' AS lock FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' ORDER BY pid`);
  return rows;
}

describe('a statement waiting for a lock past the read limit', () => {
  it('is cancelled by PostgreSQL: its transaction rolled back at once, nothing of it left waiting, the connection kept; busy in words', async () => {
    const db = await openPgDatabase(url, { max: 1, readTimeoutMs: 2000 });
    try {
      await other.query("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'held')");
      const pid = (await db.pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await other.query('BEGIN; SELECT * FROM t WHERE id = 1 FOR UPDATE');
      const failed = await inTransaction(db.pool, async (client) => {
        await client.query("INSERT INTO t VALUES (2, 'half')");
        await client.query('SELECT * FROM t WHERE id = 1 FOR UPDATE');
      }).then(() => null, (error: unknown) => error);
      expect(isReadTimeout(failed)).toBe(false);
      expect((failed as { code?: string }).code).toBe('55P03');
      expect(unreachableStorageError(failed)?.message).toBe(BUSY_WORDS);
      // Its backend is idle, not waiting for the lock with its transaction open; it is the same one.
      expect(await backends()).toEqual([{ pid, state: 'idle', lock: false }]);
      expect((await other.query('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }]);
      await other.query('COMMIT');
      expect((await db.pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid).toBe(pid);
    } finally {
      await db.close();
    }
  });

  it('an advisory lock waited for (a confirm of the same upload in another process) too: busy, its own connection closed', async () => {
    const db = await openPgDatabase(url, { max: 1, readTimeoutMs: 2000 });
    try {
      await db.pool.query('SELECT 1');
      await other.query('SELECT pg_advisory_lock($1::int8)', [advisoryKey('upload:x')]);
      let ran = false;
      const failed = await withAdvisoryLock({ db, name: 'upload:x', wait: true, ownConnection: true }, async () => { ran = true; })
        .then(() => null, (error: unknown) => error);
      expect([ran, (failed as { code?: string }).code, unreachableStorageError(failed)?.message]).toEqual([false, '55P03', BUSY_WORDS]);
      // No backend left queued for the lock: only the pool's idle connection.
      expect((await backends()).map((b) => [b.state, b.lock])).toEqual([['idle', false]]);
    } finally {
      await db.close();
    }
  });

  it('each pooled connection carries it as statement_timeout, and 9/10 of it as lock_timeout (none with a read limit of 0)', async () => {
    const db = await openPgDatabase(url, { max: 1, readTimeoutMs: 2000 });
    try {
      expect((await db.pool.query('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '2s' }]);
      expect((await db.pool.query('SHOW lock_timeout')).rows).toEqual([{ lock_timeout: '1800ms' }]);
    } finally {
      await db.close();
    }
    const unlimited = await openPgDatabase(url, { max: 1, readTimeoutMs: 0 });
    try {
      expect((await unlimited.pool.query('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '0' }]);
      expect((await unlimited.pool.query('SHOW lock_timeout')).rows).toEqual([{ lock_timeout: '0' }]);
    } finally {
      await unlimited.close();
    }
  });
});

describe('a statement merely slow (waiting for no lock) past the read limit', () => {
  it('is cancelled by PostgreSQL (57014), its transaction rolled back, the connection kept; database_timeout in words, not busy', async () => {
    const db = await openPgDatabase(url, { max: 1, readTimeoutMs: 2000 });
    try {
      await other.query('CREATE TABLE t (id int PRIMARY KEY)');
      const pid = (await db.pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      // Work no server finishes within 2 s (ten billion rows counted), holding no lock anyone waits for.
      const failed = await inTransaction(db.pool, async (client) => {
        await client.query('INSERT INTO t VALUES (1)');
        await client.query('SELECT count(*) FROM generate_series(1, 10000000000)');
      }).then(() => null, (error: unknown) => error);
      expect([isReadTimeout(failed), (failed as { code?: string }).code]).toEqual([false, '57014']);
      const answer = unreachableStorageError(failed);
      expect([answer?.code, answer?.message]).toEqual(['database_timeout', DATABASE_TIMEOUT_WORDS]);
      expect(await backends()).toEqual([{ pid, state: 'idle', lock: false }]);
      expect((await other.query('SELECT id FROM t')).rows).toEqual([]);
      expect((await db.pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid).toBe(pid);
    } finally {
      await db.close();
    }
  });
});

describe('a serving process whose upload waits for another process\'s lock on the agent (LINEAGE_DATABASE_READ_SECONDS=2)', () => {
  it('answers 503 busy + Retry-After in words, the ledger unchanged; once the lock is released the same upload is taken', async () => {
    const { bucket, settings } = await freshBucket();
    const env = scaleOutEnv(url, bucket, settings, { LINEAGE_DATABASE_READ_SECONDS: '2' });
    const storage = await openStorage(storageConfigFrom(env));
    const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
    try {
      const { key } = await storage.createApiKey({ name: 't', now: new Date() });
      const id = randomUUID();
      const register = { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'locked', source_runtime: 'openclaw' }) };
      expect((await call(`${server.url}/v1/agents`, register)).status).toBe(201);
      const snapshot = { method: 'PUT', key, contentType: 'application/octet-stream', body: await snapshotBytes(id) };
      // Another process's long transaction on this agent (an ingest holds the row until it commits).
      await other.query('BEGIN');
      await other.query('SELECT * FROM agents WHERE id = $1 FOR UPDATE', [id]);
      const refused = await call(`${server.url}/v1/agents/${id}/snapshot`, snapshot);
      expect([refused.status, refused.json, refused.headers.get('retry-after')]).toEqual([503, { error: BUSY_WORDS, code: 'busy' }, '5']);
      expect(await storage.listEntries({ agentId: id })).toEqual([]);
      expect((await backends()).filter((b) => b.lock)).toEqual([]);
      await other.query('COMMIT');
      const taken = await call(`${server.url}/v1/agents/${id}/snapshot`, snapshot);
      expect([taken.status, taken.json.sequence]).toEqual([201, 0]);
      expect((await call(`${server.url}/v1/agents/${id}`, { key })).json.latest_sequence).toBe(0);
    } finally {
      await server.close(); // closes the storage too
    }
  });
});

describe('a serving process whose read of a very large agent runs past the limit', () => {
  it('answers 504 database_timeout in words, without Retry-After (not 503 busy); the server goes on answering', async () => {
    const { bucket, settings } = await freshBucket();
    const config = storageConfigFrom(scaleOutEnv(url, bucket, settings));
    if (config.backend !== 'scale-out') throw new Error('expected the scale-out storage');
    // A limit far under the read below (seconds here) and far over the test's other statements (a few
    // ms each), so that no machine's speed decides the answer; LINEAGE_DATABASE_READ_SECONDS takes
    // whole seconds only (its reading: lib/storage/config.test.ts).
    const storage = await openStorage({ ...config, databaseReadMs: 250 });
    const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
    try {
      const { key } = await storage.createApiKey({ name: 't', now: new Date() });
      const id = randomUUID();
      const register = { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'large', source_runtime: 'openclaw' }) };
      expect((await call(`${server.url}/v1/agents`, register)).status).toBe(201);
      // An agent of 600,000 live records, as its history index holds them (written here directly:
      // ingesting that many through the service would take minutes). Reading its memory is one
      // statement that sorts them all and looks up each one's latest version: seconds, not one.
      const at = '2026-01-01T00:00:00Z';
      await other.query(`INSERT INTO records (agent_id, record_id, first_seq, last_seq, born_at, last_changed_at)
        SELECT $1, 'r' || i, 0, 0, $2, $2 FROM generate_series(1, 600000) i`, [id, at]);
      await other.query(`INSERT INTO record_versions (agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type,
          namespace, status, tags, record_json, synced_at)
        SELECT $1, 'r' || i, 0, 'snapshot', 'create', 'fact ' || i, md5(i::text), 'semantic', 'default', 'active', '[]',
          json_build_object('id', 'r' || i, 'content', 'fact ' || i)::text, $2 FROM generate_series(1, 600000) i`, [id, at]);
      await other.query('ANALYZE records, record_versions');
      const slow = await call(`${server.url}/v1/agents/${id}/memory`, { key });
      expect([slow.status, slow.json, slow.headers.get('retry-after')]).toEqual([504, { error: DATABASE_TIMEOUT_WORDS, code: 'database_timeout' }, null]);
      // The server goes on answering (PostgreSQL's cancel left the connection usable: 57014, not a silent server's drop).
      const next = { ...register, body: JSON.stringify({ id: randomUUID(), name: 'next', source_runtime: 'openclaw' }) };
      expect((await call(`${server.url}/v1/agents`, next)).status).toBe(201);
    } finally {
      await server.close(); // closes the storage too
    }
  }, 240_000);
});
