/** The presigned upload flow through a real radosgw: stage, read bounded by the limit, ingest as a final blob, download, clean up. */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshBucket, testS3Client, useRadosgw } from '@/tests/engines/use-engines';
import { isLedgerError } from './errors';
import { S3BlobStore } from './s3-blob-store';
import { deleteStaged, presignStagingPut, readStaged, stagedSize, stagingKey, type Staging } from './s3-staging';

// The gateway starts once per run (~15 s); wait for it under the hook timeout, not a test's.
beforeAll(() => useRadosgw());

async function setup(): Promise<{ staging: Staging; store: S3BlobStore }> {
  const { bucket, settings } = await freshBucket();
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'svc' };
  return { staging: { client, location }, store: new S3BlobStore(client, location) };
}

async function putTo(url: string, bytes: Uint8Array): Promise<number> {
  return (await fetch(url, { method: 'PUT', body: Buffer.from(bytes) })).status;
}

describe('presigned staging uploads', () => {
  it('bytes PUT to a presigned URL, read bounded, stored as a ledger blob and downloaded are the bytes uploaded', async () => {
    const { staging, store } = await setup();
    const uploadId = randomUUID();
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256);
    const { url, key } = await presignStagingPut({ ...staging, uploadId, expiresInSeconds: 600 });
    expect(key).toBe(`svc/staging/${uploadId}`);
    expect(await putTo(url, bytes)).toBe(200);

    expect(await stagedSize({ ...staging, uploadId })).toBe(bytes.byteLength);
    const staged = (await readStaged({ ...staging, uploadId, maxBytes: 1 << 20 }))!;
    await store.put('agent/1-abcd.alf-delta', staged);
    await deleteStaged({ ...staging, uploadId });
    expect(await stagedSize({ ...staging, uploadId })).toBeNull();

    const download = await fetch(await store.presignDownload('agent/1-abcd.alf-delta', 600));
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(await store.list()).toEqual(['agent/1-abcd.alf-delta']);
  });

  it('a missing upload is no bytes; one over the limit is refused with its size', async () => {
    const { staging } = await setup();
    const uploadId = randomUUID();
    expect(await readStaged({ ...staging, uploadId, maxBytes: 100 })).toBeNull();

    const { url } = await presignStagingPut({ ...staging, uploadId, expiresInSeconds: 600 });
    expect(await putTo(url, new Uint8Array(50))).toBe(200);
    const tooBig = await readStaged({ ...staging, uploadId, maxBytes: 40 }).catch((e: unknown) => e);
    expect(isLedgerError(tooBig, 'payload_too_large')).toBe(true);
    expect((tooBig as Error).message).toBe(`upload ${uploadId} holds 50 bytes, more than the limit 40`);
  });

  it('an upload PUT again, larger, before confirm: the read is the check, the larger object is refused', async () => {
    const { staging } = await setup();
    const uploadId = randomUUID();
    const { url } = await presignStagingPut({ ...staging, uploadId, expiresInSeconds: 600 });
    expect(await putTo(url, new Uint8Array(50))).toBe(200);
    // The URL is still valid: the client replaces the object before confirm reads it.
    expect(await putTo(url, new Uint8Array(5_000_000))).toBe(200);
    const refused = await readStaged({ ...staging, uploadId, maxBytes: 100 }).catch((e: unknown) => e);
    expect(isLedgerError(refused, 'payload_too_large')).toBe(true);
    expect((refused as Error).message).toBe(`upload ${uploadId} holds 5000000 bytes, more than the limit 100`);
    // Up to the limit is read whole, an empty object as no bytes.
    expect(await putTo(url, new Uint8Array(100).fill(7))).toBe(200);
    expect(Buffer.from((await readStaged({ ...staging, uploadId, maxBytes: 100 }))!).equals(Buffer.alloc(100, 7))).toBe(true);
    expect(await putTo(url, new Uint8Array(101))).toBe(200);
    expect(((await readStaged({ ...staging, uploadId, maxBytes: 100 }).catch((e: unknown) => e)) as Error).message)
      .toBe(`upload ${uploadId} holds 101 bytes, more than the limit 100`);
    expect(await putTo(url, new Uint8Array(0))).toBe(200);
    expect((await readStaged({ ...staging, uploadId, maxBytes: 100 }))!.byteLength).toBe(0);
  });

  it('the gateway refuses a PUT whose signature was tampered with, or to another key', async () => {
    const { staging } = await setup();
    const uploadId = randomUUID();
    const { url } = await presignStagingPut({ ...staging, uploadId, expiresInSeconds: 600 });
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', 'f'.repeat(64));
    expect(await putTo(tampered.toString(), new Uint8Array(5))).toBe(403);
    const elsewhere = new URL(url);
    elsewhere.pathname = elsewhere.pathname.replace(uploadId, randomUUID());
    expect(await putTo(elsewhere.toString(), new Uint8Array(5))).toBe(403);
    expect(await stagedSize({ ...staging, uploadId })).toBeNull();
  });

  it('upload ids are checked before any key is formed', () => {
    for (const bad of ['../x', 'short', 'a/b/c/d/e/f/g', '']) {
      let error: unknown;
      try {
        stagingKey({ bucket: 'b-1', prefix: '' }, bad);
      } catch (e) {
        error = e;
      }
      expect(isLedgerError(error, 'invalid_input'), bad).toBe(true);
    }
  });
});
