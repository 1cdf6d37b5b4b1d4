/**
 * The scale-out storage out of space: the bucket's quota reached on the real radosgw (it answers
 * `QuotaExceeded`, HTTP 403) is a 507 `disk_full` naming the bucket, as a full data directory is on
 * the embedded storage — not a 500. Nothing of the upload is in the ledger, the server serves on,
 * and the same upload is taken once the quota is lifted.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { setBucketQuota } from '@/tests/engines/radosgw-quota';
import { freshBucket, freshDatabase, scaleOutEnv, type S3Settings } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
let storage: LineageStorage;
let server: ChildServer;
let key = '';
let bucket = '';
let settings: S3Settings;
const agent = randomUUID();

beforeAll(async () => {
  const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
  ({ bucket, settings } = fresh);
  const env = scaleOutEnv(url, bucket, settings, { LINEAGE_DATA: tempDataDir() });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 't', now: new Date() })).key;
  server = await spawnServe(['--port', '0', '--no-ui'], env, 120_000);
  expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'full', source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await storage?.close();
});

describe('the bucket\'s quota reached under a scale-out lineage serve', () => {
  it('an upload gets a 507 disk_full naming the bucket, nothing of it is in the ledger, the server serves on, and the upload is taken once the quota is lifted', async () => {
    await setBucketQuota(settings, bucket, 1);
    const delta = await deltaBytes(agent, 0, 1);
    const full = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: delta });
    expect([full.status, full.json]).toEqual([507, {
      code: 'disk_full',
      error: `the object store's bucket ${bucket} has no space left for this upload (its quota is reached: QuotaExceeded): raise the bucket's or its owner's quota, or free space, and retry (nothing was stored)`,
    }]);
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/\n\s+at /);
    expect((await storage.listEntries({ agentId: agent })).map((e) => e.seq)).toEqual([0]);
    expect((await call(`${server.url}/v1/agents/${agent}`, { key })).status).toBe(200);

    await setBucketQuota(settings, bucket, null);
    const again = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: delta });
    expect([again.status, again.json.sequence]).toEqual([201, 1]);
    expect((await storage.listEntries({ agentId: agent })).map((e) => e.seq)).toEqual([0, 1]);
  });
});
