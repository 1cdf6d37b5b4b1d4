/** The S3 blob store against a real radosgw (tests/engines): the contract, the write-once rule, paging, downloads. */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshBucket, testS3Client, useRadosgw } from '@/tests/engines/use-engines';
import { sha256Hex } from '@/lib/core/uuid';
import { runBlobStoreContract } from './blob-store-contract';
import { isLedgerError } from './errors';
import { BlobConflictError, S3BlobStore } from './s3-blob-store';

async function makeStore(options: { prefix?: string; listPageSize?: number } = {}): Promise<S3BlobStore> {
  const { bucket, settings } = await freshBucket();
  return new S3BlobStore(testS3Client(settings), { bucket, prefix: options.prefix ?? 'lineage' }, options);
}

const bytesOf = (text: string) => new TextEncoder().encode(text);

// The gateway starts once per run (~15 s); wait for it under the hook timeout, not a test's.
beforeAll(() => useRadosgw());

runBlobStoreContract('S3 (radosgw)', () => makeStore());
runBlobStoreContract('S3 (radosgw), whole bucket', () => makeStore({ prefix: '' }));

describe('S3BlobStore write-once rule', () => {
  it('a second writer with other bytes is refused loudly and the first bytes stay', async () => {
    const store = await makeStore();
    await store.put('agent/1-aaaa.alf-delta', bytesOf('first'));
    const error = await store.put('agent/1-aaaa.alf-delta', bytesOf('second')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobConflictError);
    expect(isLedgerError(error, 'blob_conflict')).toBe(true);
    expect((error as Error).message).toContain(sha256Hex(bytesOf('first')));
    expect((error as Error).message).toContain(sha256Hex(bytesOf('second')));
    expect(new TextDecoder().decode(await store.get('agent/1-aaaa.alf-delta'))).toBe('first');
  });

  it('a second writer with the same bytes succeeds (a retried upload)', async () => {
    const store = await makeStore();
    await store.put('agent/0-bbbb.alf', bytesOf('same'));
    await store.put('agent/0-bbbb.alf', bytesOf('same'));
    expect(new TextDecoder().decode(await store.get('agent/0-bbbb.alf'))).toBe('same');
  });

  it('8 concurrent writers of one key with different bytes: one set of bytes is kept, the 7 others are refused', async () => {
    const store = await makeStore();
    for (let round = 0; round < 5; round++) {
      const key = `race/${round}-cccc.alf-delta`;
      const offers = Array.from({ length: 8 }, (_, i) => bytesOf(`writer ${i} round ${round} `.repeat(200 + i)));
      const outcomes = await Promise.allSettled(offers.map((bytes) => store.put(key, bytes)));
      const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(BlobConflictError);
      }
      const stored = await store.get(key);
      expect(Buffer.from(stored).equals(Buffer.from(offers[winners[0]!]!))).toBe(true);
    }
  });

  it('writes final keys under <prefix>/blobs/ only', async () => {
    const store = await makeStore({ prefix: 'team/lineage' });
    await store.put('agent/0-dddd.alf', bytesOf('x'));
    const listed = await store.client.send(new ListObjectsV2Command({ Bucket: store.location.bucket }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['team/lineage/blobs/agent/0-dddd.alf']);
  });
});

describe('S3BlobStore list paging and downloads', () => {
  it('lists across many ListObjectsV2 pages', async () => {
    const store = await makeStore({ listPageSize: 3 });
    const keys = Array.from({ length: 11 }, (_, i) => `pages/${i}-eeee.alf-delta`);
    await Promise.all(keys.map((key) => store.put(key, bytesOf(key))));
    await store.put('other/0-ffff.alf', bytesOf('o'));
    expect(await store.list('pages/')).toEqual([...keys].sort());
    expect(await store.list()).toHaveLength(12);
  });

  it('a presigned download gives the stored bytes; a tampered signature is refused', async () => {
    const store = await makeStore();
    const bytes = Uint8Array.from({ length: 5_000 }, (_, i) => i % 251);
    await store.put('dl/0-gggg.alf', bytes);
    const url = await store.presignDownload('dl/0-gggg.alf', 300);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('the engine is a real radosgw that checks signatures', async () => {
    const settings = await useRadosgw();
    const { bucket } = await freshBucket();
    expect((await fetch(`${settings.endpoint}/${bucket}`)).status).toBe(403);
  });
});
