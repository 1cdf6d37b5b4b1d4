/**
 * The protocol's presigned upload (CONTRACT §1.2 #5/#7, archives over 6,000,000 bytes) on the
 * scale-out backend, through the storage seam, on the run's real PostgreSQL 15 + radosgw: the
 * pending upload lives in PostgreSQL (another process's pool sees it), the client PUTs to a real
 * S3 presigned URL in the staging prefix, confirm reads it with one ranged GET (no HEAD first),
 * ingests, and the staged object is gone; the download is a presigned GET of the very bytes. An
 * upload over the limit is refused from that GET's answer, its body unread, and nothing is
 * ingested; radosgw itself refuses an expired or tampered URL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { writeSnapshot } from '@/lib/core/archive';
import { isLedgerError } from '@/lib/ledger/errors';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { stagedSize } from '@/lib/ledger/s3-staging';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';

const AGENT = '7d7d7d7d-2222-4a2b-8c3d-00000000a001';
const NOW = new Date('2026-11-05T10:00:00Z');
let url = '';
let storage: LineageStorage;
let other: LineageStorage;
let staging: { client: ReturnType<typeof testS3Client>; location: { bucket: string; prefix: string } };
let settingsOf: Parameters<typeof testS3Client>[0];
/** The S3 commands the storages sent, in order (the SDK's own middleware seam). */
const sent: string[] = [];

async function open(): Promise<LineageStorage> {
  const db = await openPgDatabase(url);
  const client = testS3Client(settingsOf);
  client.middlewareStack.add((next, context) => (args) => {
    sent.push(context.commandName ?? '?');
    return next(args);
  }, { step: 'initialize', name: 'sentCommands' });
  return scaleOutStorage({ db, blobs: new S3BlobStore(client, staging.location), client, location: staging.location });
}

beforeAll(async () => {
  const [dbUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  url = dbUrl;
  settingsOf = settings;
  staging = { client: testS3Client(settings), location: { bucket, prefix: 'svc' } };
  [storage, other] = [await open(), await open()];
  await storage.registerAgent({ id: AGENT, name: 'big', sourceRuntime: 'openclaw', tenantId: null, now: NOW });
});
afterAll(async () => {
  await storage?.close();
  await other?.close();
  staging?.client.destroy();
});

async function bigSnapshot(): Promise<Uint8Array> {
  // Random bytes do not compress: the archive is over the protocol's 6,000,000-byte threshold.
  const raw = new Map([['raw/openclaw/attachments/big.bin', new Uint8Array(randomBytes(6_200_000))]]);
  const manifest = { alf_version: '1.0.0', created_at: NOW.toISOString(), agent: { id: AGENT, name: 'big', source_runtime: 'openclaw' } };
  return writeSnapshot({ manifest, records: [], layers: {}, raw, extra: new Map() });
}

const put = async (target: string, bytes: Uint8Array) => (await fetch(target, { method: 'PUT', body: Buffer.from(bytes) })).status;
const pending = (s: LineageStorage) => s.uploads.create({ agentId: AGENT, tenantId: '', kind: 'snapshot', baseSequence: null, expiresAt: '2026-11-05T10:15:00.000Z' });

describe('presigned uploads through S3 on the scale-out backend', () => {
  it('PUT to the presigned staging URL, confirm on another process: one ranged GET, ingested, staged object deleted, downloaded equal', async () => {
    const bytes = await bigSnapshot();
    expect(bytes.byteLength).toBeGreaterThan(6_000_000);
    const upload = await pending(storage);
    const uploadUrl = await storage.uploads.uploadUrl(upload.id, 600);
    expect(new URL(uploadUrl!).pathname).toBe(`/${staging.location.bucket}/svc/staging/${upload.id}`);
    expect(new URL(uploadUrl!).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(await put(uploadUrl!, bytes)).toBe(200);

    // The confirm reaches the other process: the pending upload is a PostgreSQL row.
    expect(await other.uploads.get(upload.id)).toEqual(upload);
    sent.length = 0;
    const staged = await other.uploads.readBytes(upload.id, { maxBytes: 256 * 1024 * 1024 });
    expect(sent).toEqual(['GetObjectCommand']);
    expect(Buffer.from(staged!).equals(Buffer.from(bytes))).toBe(true);
    const result = await other.ingestSnapshot({ agentId: AGENT, bytes: staged!, now: NOW });
    await other.uploads.markConfirmed(upload, { status: 201, body: { snapshot_id: upload.id, sequence: result.sequence } });
    expect(await stagedSize({ ...staging, uploadId: upload.id })).toBeNull();
    expect(await storage.uploads.readBytes(upload.id)).toBeNull();
    expect((await storage.uploads.get(upload.id))?.confirmed).toEqual({ status: 201, body: { snapshot_id: upload.id, sequence: 0 } });

    expect((await storage.listEntries({ agentId: AGENT })).map((e) => [e.seq, e.kind, e.size_bytes])).toEqual([[0, 'snapshot', bytes.byteLength]]);
    const download = await storage.blobDownloadUrl({ key: result.blobKey, expiresInSeconds: 60 });
    const downloaded = Buffer.from(await (await fetch(download!)).arrayBuffer());
    expect(downloaded.equals(Buffer.from(bytes))).toBe(true);
  });

  it('an upload over the limit is refused at confirm from the ranged GET, its body unread; nothing is ingested', async () => {
    const before = await storage.listEntries({ agentId: AGENT });
    const blobsBefore = await storage.blobs.list();
    const upload = await pending(storage);
    expect(await put((await storage.uploads.uploadUrl(upload.id, 600))!, new Uint8Array(5000))).toBe(200);
    sent.length = 0;
    const refused = await other.uploads.readBytes(upload.id, { maxBytes: 4096 }).catch((e: unknown) => e);
    expect(sent).toEqual(['GetObjectCommand']);
    expect(isLedgerError(refused, 'payload_too_large')).toBe(true);
    expect((refused as Error).message).toBe(`upload ${upload.id} holds 5000 bytes, more than the limit 4096`);
    await other.uploads.remove(upload.id);
    expect(await stagedSize({ ...staging, uploadId: upload.id })).toBeNull();
    expect(await storage.uploads.get(upload.id)).toBeNull();
    expect(await storage.listEntries({ agentId: AGENT })).toEqual(before);
    expect(await storage.blobs.list()).toEqual(blobsBefore);
  });

  it('nothing PUT yet is no bytes (null), one GET; an empty upload is empty bytes', async () => {
    const upload = await pending(storage);
    sent.length = 0;
    expect(await other.uploads.readBytes(upload.id, { maxBytes: 4096 })).toBeNull();
    expect(sent).toEqual(['GetObjectCommand']);
    expect(await put((await storage.uploads.uploadUrl(upload.id, 600))!, new Uint8Array(0))).toBe(200);
    expect((await other.uploads.readBytes(upload.id, { maxBytes: 4096 }))?.byteLength).toBe(0);
    await other.uploads.remove(upload.id);
  });

  it('radosgw refuses an expired presigned URL and a tampered one; nothing is staged', async () => {
    const upload = await pending(storage);
    const expiring = (await storage.uploads.uploadUrl(upload.id, 1))!;
    const valid = (await storage.uploads.uploadUrl(upload.id, 600))!;
    const tampered = new URL(valid);
    tampered.searchParams.set('X-Amz-Expires', '604800');
    expect(await put(tampered.toString(), new Uint8Array(10))).toBe(403);
    const otherKey = new URL(valid);
    otherKey.pathname = otherKey.pathname.replace('/staging/', '/blobs/');
    expect(await put(otherKey.toString(), new Uint8Array(10))).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await put(expiring, new Uint8Array(10))).toBe(403);
    expect(await storage.uploads.readBytes(upload.id)).toBeNull();
    expect(await stagedSize({ ...staging, uploadId: upload.id })).toBeNull();
  });
});
