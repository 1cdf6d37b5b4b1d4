/**
 * The sync time `lineage doctor --repair` gives an entry it re-ingests (an upload whose commit was
 * lost: its blob stored, no entry): when the blob was stored, on the server's clock, to the
 * millisecond on both backends — the blob file's mtime (embedded), the bucket listing's LastModified
 * (scale-out; HEAD's Last-Modified, whole seconds, gave `…16:14:24.000Z`).
 */
import fs from 'node:fs';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '@/lib/core/uuid';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { findUnledgeredBlobs, listEntries, recoverUnledgered, registerAgent } from '@/lib/ledger';
import { PACKED_SUFFIX } from '@/lib/ledger/blob-files';
import { historyIndexer, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { recoverUnledgeredObjects } from '@/lib/storage/consistency';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv, testS3Client, type S3Settings } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';

const AGENT = '7c0ffee0-0000-4000-8000-0000000000e1';
const T0 = new Date('2026-11-01T09:00:00.000Z');

/** A lost commit's leftover: the delta at 1, its blob stored under the key its ingest would have used. */
async function lostDelta(): Promise<{ key: string; bytes: Uint8Array }> {
  const bytes = await deltaBytes(AGENT, 0, 1);
  return { key: `${AGENT}/1-${sha256Hex(bytes).slice(0, 16)}.alf-delta`, bytes };
}

describe('a re-ingested entry\'s sync time is when its blob was stored, to the millisecond', () => {
  it('embedded: the blob file\'s mtime', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: T0 });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: T0 });
      const lost = await lostDelta();
      await ledger.blobs.put(lost.key, lost.bytes);
      // Its file: whole, or packed against the snapshot (packing keeps the mtime).
      const [blob] = await findUnledgeredBlobs(ledger);
      const stored = (fs.existsSync(blob!.file) ? fs.statSync(blob!.file) : fs.statSync(blob!.file + PACKED_SUFFIX)).mtime;
      expect((await recoverUnledgered(ledger, historyIndexer)).map((r) => [r.sequence, r.recovered])).toEqual([[1, true]]);
      expect(listEntries({ ledger, agentId: AGENT }).map((e) => [e.seq, e.created_at])).toEqual([[0, T0.toISOString()], [1, stored.toISOString()]]);
    } finally {
      t.cleanup();
    }
  });

  describe('scale-out (PostgreSQL + radosgw)', () => {
    let storage: LineageStorage;
    let bucket = '';
    let settings: S3Settings;
    beforeAll(async () => {
      const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
      ({ bucket, settings } = fresh);
      storage = await openStorage(storageConfigFrom(scaleOutEnv(url, bucket, settings)));
    }, 300_000);
    afterAll(async () => {
      await storage?.close();
    });

    it('the bucket listing\'s LastModified, milliseconds and all', async () => {
      await storage.registerAgent({ id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: T0 });
      await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshotBytes(AGENT), now: T0 });
      const lost = await lostDelta();
      await storage.blobs.put(lost.key, lost.bytes);
      const client = testS3Client(settings);
      let listed: Date | undefined;
      try {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
        listed = page.Contents?.find((o) => o.Key?.endsWith(lost.key))?.LastModified;
      } finally {
        client.destroy();
      }
      expect(listed).toBeInstanceOf(Date);
      expect((await recoverUnledgeredObjects(storage)).map((r) => [r.sequence, r.recovered])).toEqual([[1, true]]);
      const entries = await storage.listEntries({ agentId: AGENT });
      expect(entries.map((e) => [e.seq, new Date(e.created_at).toISOString()])).toEqual([[0, T0.toISOString()], [1, listed!.toISOString()]]);
    });
  });
});
