/**
 * A PostgreSQL connection that dies under a running `lineage serve` (the database restarted, a
 * backend terminated by an operator or a failover) while a request has it checked out: that request
 * fails with a reply, the process keeps serving, and nothing is acknowledged that is not in the
 * ledger. The test holds the agent's row lock so an upload waits inside its transaction, then
 * terminates that very backend: no timing.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { createS3Client } from '@/lib/ledger/s3-config';
import { createLineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv, testS3Client } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
let databaseUrl = '';
let storage: LineageStorage;
let server: ChildServer;
let key = '';
const agent = randomUUID();

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  databaseUrl = url;
  const env = scaleOutEnv(url, bucket, settings, { LINEAGE_DATA: tempDataDir() });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 't', now: new Date() })).key;
  server = await spawnServe(['--port', '0', '--no-ui'], env, 120_000);
  expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'drop', source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await storage?.close();
});

describe('a PostgreSQL connection dropped under a serving process', () => {
  it('an upload whose connection is terminated mid-transaction gets an error reply, nothing is stored, and the process serves the next upload', async () => {
    const holder = new pg.Client(databaseUrl);
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agent]);
      const upload = call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 0, 1) })
        .catch((error: unknown) => error);
      let waiting: number | undefined;
      while (waiting === undefined) {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
        waiting = rows[0]?.pid;
      }
      await holder.query('SELECT pg_terminate_backend($1)', [waiting]);
      await holder.query('COMMIT');
      const reply = await upload;
      expect(reply).not.toBeInstanceOf(Error);
      const { status, json, headers } = reply as Awaited<ReturnType<typeof call>>;
      expect([status, json, headers.get('retry-after')]).toEqual([503, { error: 'the database could not be reached; retry shortly', code: 'busy' }, '5']);
    } finally {
      await holder.end();
    }
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/\n\s+at /);
    expect((await storage.listEntries({ agentId: agent })).map((e) => e.seq)).toEqual([0]);
    const next = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 0, 2) });
    expect([next.status, next.json.sequence]).toEqual([201, 1]);
  });

  it('every pooled connection ended by an operator between two requests (pg_terminate_backend): the next request is no 500, the one after is answered', async () => {
    const admin = new pg.Client(databaseUrl);
    await admin.connect();
    try {
      // Several pooled connections, all idle once answered.
      const read = () => call(`${server.url}/v1/agents/${agent}`, { key });
      expect((await Promise.all([read(), read(), read(), read()])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const ended = (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
        AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)).rows.map((r) => r.pid);
      expect(ended.length).toBeGreaterThan(0);
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [ended]);
      // Until their backends are gone (each said 57P01 to its client first).
      for (;;) {
        await admin.query('SELECT pg_stat_clear_snapshot()');
        if ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [ended])).rows.length === 0) break;
      }
      const next = await read();
      // Answered (a new connection), or told busy in words with a Retry-After: never a 500.
      if (next.status !== 200) expect([next.status, next.json, next.headers.get('retry-after')]).toEqual([503, { error: 'the database could not be reached; retry shortly', code: 'busy' }, '5']);
      const after = await read();
      expect([after.status, after.json.id]).toEqual([200, agent]);
    } finally {
      await admin.end();
    }
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe('an object store that cannot be reached', () => {
  it('a snapshot whose blob cannot be written is a 503 busy + Retry-After, nothing is stored, and the same upload succeeds once the store is back', async () => {
    const { bucket, settings } = await freshBucket();
    const location = { bucket, prefix: 'svc' };
    const db = await openPgDatabase(databaseUrl);
    // Nothing listens on port 1 of the loopback: every S3 request is refused.
    const down = testS3Client({ ...settings, endpoint: 'http://127.0.0.1:1' });
    const unreachable = await createLineageServer({
      dataDir: tempDataDir(), storage: scaleOutStorage({ db, blobs: new S3BlobStore(down, location), client: down, location }),
      port: 0, ui: false, log: () => undefined,
    });
    try {
      const id = randomUUID();
      const registered = await call(`${unreachable.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 's3 down', source_runtime: 'openclaw' }) });
      expect(registered.status).toBe(201);
      const bytes = await snapshotBytes(id);
      const refused = await call(`${unreachable.url}/v1/agents/${id}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect([refused.status, refused.json, refused.headers.get('retry-after')]).toEqual([503, { error: 'the object store could not be reached; retry shortly', code: 'busy' }, '5']);
      expect(await storage.listEntries({ agentId: id })).toEqual([]);
      expect((await storage.getAgent({ agentId: id }))?.latest_sequence).toBeNull();
      const up = testS3Client(settings);
      const stored = await scaleOutStorage({ db, blobs: new S3BlobStore(up, location), client: up, location })
        .ingestSnapshot({ agentId: id, bytes, now: new Date() });
      expect(stored.sequence).toBe(0);
      up.destroy();
    } finally {
      await unreachable.close();
    }
  });
});

describe('an object store that stops answering', () => {
  it('a blob write on which no byte moves for LINEAGE_S3_IDLE_SECONDS fails as a 503; the agent\'s row lock is let go, and the next upload goes through', async () => {
    // A peer that takes connections and never answers: a gateway hung, or a network that drops packets.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => { sockets.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { bucket, settings } = await freshBucket();
    const location = { bucket, prefix: 'svc' };
    const db = await openPgDatabase(databaseUrl);
    const hung = createS3Client(
      { endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, region: settings.region, forcePathStyle: true, idleSeconds: 1 },
      { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    );
    const server = await createLineageServer({
      dataDir: tempDataDir(), storage: scaleOutStorage({ db, blobs: new S3BlobStore(hung, location), client: hung, location }),
      port: 0, ui: false, log: () => undefined,
    });
    try {
      const id = randomUUID();
      expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'hung', source_runtime: 'openclaw' }) })).status).toBe(201);
      const refused = await call(`${server.url}/v1/agents/${id}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(id) });
      expect([refused.status, refused.json]).toEqual([503, { error: 'the object store could not be reached; retry shortly', code: 'busy' }]);
      // The row lock the write held is free: the real store takes the agent's snapshot.
      const up = testS3Client(settings);
      const stored = await scaleOutStorage({ db, blobs: new S3BlobStore(up, location), client: up, location })
        .ingestSnapshot({ agentId: id, bytes: await snapshotBytes(id), now: new Date() });
      expect(stored.sequence).toBe(0);
      up.destroy();
    } finally {
      await server.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
