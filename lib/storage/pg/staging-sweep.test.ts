/**
 * Staged uploads never confirmed are not acknowledged data: the scale-out backend's maintenance
 * (`startMaintenance`, as `lineage serve` runs it) sweeps pending uploads past their expiry — the
 * row and the staged object — and staged objects no pending upload owns, once older than the grace.
 * On the run's real PostgreSQL 15 + radosgw: what is still pending stays, and no final key (the
 * ledger's blobs), nor anything outside the service's own staging names, is touched.
 */
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { listStaged } from '@/lib/ledger/s3-staging';
import { snapshotBytes } from '@/tests/server/archives';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';

const AGENT = '7d7d7d7d-5555-4a2b-8c3d-00000000a001';
const HOUR = 60 * 60 * 1000;
let storage: LineageStorage;
let staging: { client: ReturnType<typeof testS3Client>; location: { bucket: string; prefix: string } };

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  staging = { client: testS3Client(settings), location: { bucket, prefix: 'svc' } };
  const client = testS3Client(settings);
  storage = scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, staging.location), client, location: staging.location });
  await storage.registerAgent({ id: AGENT, name: 'sweep', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
});
afterAll(async () => {
  await storage?.close();
  staging?.client.destroy();
});

const pending = (expiresAt: Date) =>
  storage.uploads.create({ agentId: AGENT, tenantId: '', kind: 'snapshot', baseSequence: null, expiresAt: expiresAt.toISOString() });
const putTo = async (url: string | null) => (await fetch(url!, { method: 'PUT', body: Buffer.from('staged bytes') })).status;
const stagedIds = async () => (await listStaged(staging)).map((s) => s.uploadId).sort();

describe('the staging sweep of the scale-out maintenance', () => {
  it('removes expired pending uploads (row + staged object) and unowned staged objects; keeps what is pending and every final key', async () => {
    const now = Date.now();
    const expired = await pending(new Date(now - 2 * HOUR));
    // Expires at the sweep's clock (it is still within the hour of grace past its expiry then).
    const live = await pending(new Date(now + 2 * HOUR));
    const confirmedLongAgo = await pending(new Date(now - 3 * HOUR));
    await storage.uploads.markConfirmed(confirmedLongAgo, { status: 201, body: { sequence: 0 } });
    // Removed (a confirm refused for its size) while its presigned URL was still valid, then PUT again.
    const removed = await pending(new Date(now + 15 * 60 * 1000));
    const removedUrl = await storage.uploads.uploadUrl(removed.id, 600);
    await storage.uploads.remove(removed.id);
    for (const url of [await storage.uploads.uploadUrl(expired.id, 600), await storage.uploads.uploadUrl(live.id, 600), removedUrl]) expect(await putTo(url)).toBe(200);
    // Not a name this service gives an upload, and another prefix of the same bucket: not ours to sweep.
    const foreign = ['svc/staging/not-an-upload-id', `other/staging/${randomUUID()}`];
    for (const Key of foreign) await staging.client.send(new PutObjectCommand({ Bucket: staging.location.bucket, Key, Body: 'x' }));
    const finalKeys = await storage.blobs.list();
    expect(finalKeys).toHaveLength(1);
    expect(await stagedIds()).toEqual([expired.id, live.id, removed.id, 'not-an-upload-id'].sort());

    // The sweep a server runs at start and every interval, with its clock past the grace of the expired ones.
    const maintenance = storage.startMaintenance({ log: (line) => { throw new Error(line); }, clock: () => new Date(now + 2 * HOUR), intervalMs: 60_000 });
    try {
      await expect.poll(async () => (await stagedIds()).join(' '), { timeout: 30_000 }).toBe([live.id, 'not-an-upload-id'].sort().join(' '));
      await expect.poll(async () => storage.uploads.get(expired.id), { timeout: 30_000 }).toBeNull();
      await expect.poll(async () => storage.uploads.get(confirmedLongAgo.id), { timeout: 30_000 }).toBeNull();
    } finally {
      await maintenance.stop();
    }
    expect(await storage.uploads.get(live.id)).toEqual(live);
    expect(await storage.uploads.readBytes(live.id)).toEqual(new Uint8Array(Buffer.from('staged bytes')));
    expect(await storage.blobs.list()).toEqual(finalKeys);
    const [entry] = await storage.listEntries({ agentId: AGENT });
    await storage.readEntryBytes({ entry: entry! });
    // Still there: HEAD answers (it throws on a missing key).
    for (const Key of foreign) await staging.client.send(new HeadObjectCommand({ Bucket: staging.location.bucket, Key }));
  });

  it('a staged object younger than the grace stays, even without a pending upload (an upload could still be on its way)', async () => {
    const orphan = await pending(new Date(Date.now() + 15 * 60 * 1000));
    const url = await storage.uploads.uploadUrl(orphan.id, 600);
    await storage.uploads.remove(orphan.id);
    expect(await putTo(url)).toBe(200);
    await storage.uploads.sweep(new Date());
    expect(await stagedIds()).toContain(orphan.id);
    await storage.uploads.sweep(new Date(Date.now() + 2 * HOUR));
    expect(await stagedIds()).not.toContain(orphan.id);
  });
});
