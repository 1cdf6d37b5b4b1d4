/**
 * A presigned confirm is idempotent across server processes (issue 18 §6 on the scale-out backend):
 * the same confirm sent to two processes of one service (a client's retry landing on another
 * process behind the load balancer) makes one ledger entry, and both answer with it. Two servers,
 * each over its own storage (its own pool, its own in-process confirm map, as two `lineage serve`
 * processes have), on the run's PostgreSQL 15 + radosgw. The test holds the agent's row lock while
 * both confirms are sent, so both are inside the service before either may append: no timing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteBucketPolicyCommand, PutBucketPolicyCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';
import { call, tempDataDir } from './harness';

const SECRET = randomBytes(32);
let url = '';
let storages: LineageStorage[] = [];
let servers: LineageServer[] = [];
let key = '';
let agent = '';
let staging: { client: ReturnType<typeof testS3Client>; bucket: string };

beforeAll(async () => {
  const [dbUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  url = dbUrl;
  const location = { bucket, prefix: 'svc' };
  staging = { client: testS3Client(settings), bucket };
  storages = await Promise.all([0, 1].map(async () => {
    const client = testS3Client(settings);
    return scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, location), client, location });
  }));
  key = (await storages[0]!.createApiKey({ name: 't', now: new Date() })).key;
  servers = await Promise.all(storages.map((storage) => createLineageServer({
    dataDir: tempDataDir(), storage, secret: SECRET, port: 0, ui: false, log: () => undefined,
  })));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  staging?.client.destroy();
});

/** A new agent of the test's key, registered through the first process. */
async function register(): Promise<void> {
  agent = randomUUID();
  const registered = await call(`${servers[0]!.url}/v1/agents`, {
    method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'confirm', source_runtime: 'openclaw' }),
  });
  expect(registered.status).toBe(201);
}

/** Runs `task` while this test's own transaction holds the agent's row lock, released once `waiters` sessions wait on a lock. */
async function withRowLockHeld<T>(waiters: number, task: () => Promise<T>): Promise<T> {
  const holder = new pg.Client(url);
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agent]);
    const running = task();
    for (;;) {
      // pg_stat_activity is read once per transaction unless its snapshot is cleared.
      await holder.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await holder.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      if (rows[0]!.n >= waiters) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await holder.query('COMMIT');
    return await running;
  } finally {
    await holder.end();
  }
}

async function presign(initPath: string, bytes: Uint8Array): Promise<string> {
  const init = await call(`${servers[0]!.url}${initPath}`, { method: 'POST', key });
  expect(init.status, init.text).toBe(200);
  expect((await fetch(init.json.upload_url, { method: 'PUT', body: Buffer.from(bytes) })).status).toBe(200);
  return init.json.snapshot_id ?? init.json.delta_id;
}

const entries = async () => (await storages[0]!.listEntries({ agentId: agent })).map((e) => [e.seq, e.kind]);

describe('one presigned upload confirmed on two processes at once', () => {
  it('snapshot: one entry at sequence 0, both processes answer 201 with it', async () => {
    await register();
    const id = await presign(`/v1/agents/${agent}/snapshot/upload`, await snapshotBytes(agent));
    const replies = await withRowLockHeld(2, () => Promise.all(servers.map((s) =>
      call(`${s.url}/v1/agents/${agent}/snapshot/upload/${id}/confirm`, { method: 'POST', key }))));
    expect(replies.map((r) => [r.status, r.json.sequence])).toEqual([[201, 0], [201, 0]]);
    expect(replies[1]!.text).toBe(replies[0]!.text);
    expect(await entries()).toEqual([[0, 'snapshot']]);
  });

  it('delta: one entry at base + 1, both processes answer 201 with it (no 409 for the upload that made it)', async () => {
    await register();
    expect((await call(`${servers[0]!.url}/v1/agents/${agent}/snapshot`, {
      method: 'PUT', key, contentType: 'application/octet-stream', body: await snapshotBytes(agent),
    })).status).toBe(201);
    const id = await presign(`/v1/agents/${agent}/deltas/upload?base_sequence=0`, await deltaBytes(agent, 0, 1));
    const replies = await withRowLockHeld(2, () => Promise.all(servers.map((s) =>
      call(`${s.url}/v1/agents/${agent}/deltas/upload/${id}/confirm`, { method: 'POST', key }))));
    expect(replies.map((r) => [r.status, r.json.sequence])).toEqual([[201, 1], [201, 1]]);
    expect(replies[1]!.text).toBe(replies[0]!.text);
    expect(await entries()).toEqual([[0, 'snapshot'], [1, 'delta']]);
    // A later confirm, on either process, answers the same.
    const again = await call(`${servers[1]!.url}/v1/agents/${agent}/deltas/upload/${id}/confirm`, { method: 'POST', key });
    expect([again.status, again.text]).toEqual([201, replies[0]!.text]);
  });
});

describe('a confirm retried after its process died between the commit and recording the reply', () => {
  // What the dead process left: the entry committed (through the storage, as its ingest did), the
  // upload still pending with its staged bytes.
  it('snapshot: the retry answers with the committed entry, no second snapshot', async () => {
    await register();
    const bytes = await snapshotBytes(agent);
    const id = await presign(`/v1/agents/${agent}/snapshot/upload`, bytes);
    const committed = await storages[1]!.ingestSnapshot({ agentId: agent, bytes, now: new Date() });
    const retry = await call(`${servers[0]!.url}/v1/agents/${agent}/snapshot/upload/${id}/confirm`, { method: 'POST', key });
    expect([retry.status, retry.json]).toEqual([201, { snapshot_id: committed.id, sequence: 0, size_bytes: bytes.byteLength, blob_key: committed.blobKey }]);
    expect(await entries()).toEqual([[0, 'snapshot']]);
  });

  it('delta: the retry answers 201 with the committed entry, not 409', async () => {
    await register();
    expect((await call(`${servers[0]!.url}/v1/agents/${agent}/snapshot`, {
      method: 'PUT', key, contentType: 'application/octet-stream', body: await snapshotBytes(agent),
    })).status).toBe(201);
    const bytes = await deltaBytes(agent, 0, 1);
    const id = await presign(`/v1/agents/${agent}/deltas/upload?base_sequence=0`, bytes);
    const committed = await storages[1]!.ingestDelta({ agentId: agent, baseSequence: 0, bytes, now: new Date() });
    const retry = await call(`${servers[0]!.url}/v1/agents/${agent}/deltas/upload/${id}/confirm`, { method: 'POST', key });
    expect([retry.status, retry.json]).toEqual([201, { delta_id: committed.id, sequence: 1, size_bytes: bytes.byteLength }]);
    expect(await entries()).toEqual([[0, 'snapshot'], [1, 'delta']]);
    // A delta at that base with other bytes is still the client's conflict.
    const other = await presign(`/v1/agents/${agent}/deltas/upload?base_sequence=1`, await deltaBytes(agent, 1, 2));
    await storages[1]!.ingestDelta({ agentId: agent, baseSequence: 1, bytes: await deltaBytes(agent, 1, 3), now: new Date() });
    const refused = await call(`${servers[0]!.url}/v1/agents/${agent}/deltas/upload/${other}/confirm`, { method: 'POST', key });
    expect([refused.status, refused.headers.get('x-latest-sequence')]).toEqual([409, '2']);
  });
});

describe('a staged object the bucket will not delete at confirm', () => {
  /** Runs `task` while the bucket refuses every DeleteObject in the staging prefix (a bucket policy). */
  async function withStagedDeletesDenied(task: () => Promise<void>): Promise<void> {
    await staging.client.send(new PutBucketPolicyCommand({ Bucket: staging.bucket, Policy: JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${staging.bucket}/svc/staging/*` }],
    }) }));
    try {
      await task();
    } finally {
      await staging.client.send(new DeleteBucketPolicyCommand({ Bucket: staging.bucket }));
    }
  }

  it('an upload committed to the ledger answers 201 (the sweep removes the staged object later); a refused one answers its 4xx', async () => {
    await register();
    const id = await presign(`/v1/agents/${agent}/snapshot/upload`, await snapshotBytes(agent));
    const bad = await presign(`/v1/agents/${agent}/snapshot/upload`, new TextEncoder().encode('not an archive'));
    await withStagedDeletesDenied(async () => {
      const confirmed = await call(`${servers[0]!.url}/v1/agents/${agent}/snapshot/upload/${id}/confirm`, { method: 'POST', key });
      expect([confirmed.status, confirmed.json.sequence]).toEqual([201, 0]);
      const refused = await call(`${servers[0]!.url}/v1/agents/${agent}/snapshot/upload/${bad}/confirm`, { method: 'POST', key });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatch(/^invalid archive/);
    });
    expect(await entries()).toEqual([[0, 'snapshot']]);
    const again = await call(`${servers[1]!.url}/v1/agents/${agent}/snapshot/upload/${id}/confirm`, { method: 'POST', key });
    expect([again.status, again.json.sequence]).toEqual([201, 0]);
  });
});
