/**
 * A presigned confirm asks whether its bytes are in the ledger already (a retry after the process
 * died between the commit and recording the reply). Only a true retry is hashed: bytes of another
 * size than the entry's are not read at all — the common snapshot confirm, whose agent's latest
 * entry is a snapshot, would otherwise hash its bytes here and again in the ingest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStorage, type EmbeddedStorage } from '@/lib/storage/embedded';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import type { PendingUpload } from '../upload-store';
import { ingestedAlready } from './ingested-already';

const AGENT = '7b0f3c2e-3333-4a2b-8c3d-000000000001';
let dir: string;
let storage: EmbeddedStorage;
let snapshot: Uint8Array;
let delta: Uint8Array;

/** The uploaded bytes, counting how often their contents are read (hashing reads them through `.buffer`). */
class WatchedBytes extends Uint8Array {
  reads = 0;
  override get buffer(): ArrayBuffer {
    this.reads++;
    return super.buffer as ArrayBuffer;
  }
}

const upload = (kind: PendingUpload['kind'], baseSequence: number | null): PendingUpload =>
  ({ id: 'u', agentId: AGENT, tenantId: '', kind, baseSequence, expiresAt: '2099-01-01T00:00:00Z' });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ingested-already-'));
  storage = openEmbeddedStorage(dir);
  await storage.registerAgent({ id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  snapshot = await snapshotBytes(AGENT);
  await storage.ingestSnapshot({ agentId: AGENT, bytes: snapshot, now: new Date() });
  delta = await deltaBytes(AGENT, 0, 1);
  await storage.ingestDelta({ agentId: AGENT, baseSequence: 0, bytes: delta, now: new Date() });
  snapshot = new Uint8Array(snapshot);
});
afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ingestedAlready', () => {
  it('a retried delta answers with its entry (its bytes hashed)', async () => {
    const bytes = new WatchedBytes(delta);
    const found = await ingestedAlready(storage, upload('delta', 0), bytes);
    expect(found).toMatchObject({ sequence: 1, sizeBytes: delta.byteLength });
    expect(bytes.reads).toBeGreaterThan(0);
  });

  it('a retried snapshot answers with the latest entry, a snapshot at the delta\'s sequence', async () => {
    await storage.ingestSnapshot({ agentId: AGENT, bytes: snapshot, now: new Date() });
    const bytes = new WatchedBytes(snapshot);
    expect(await ingestedAlready(storage, upload('snapshot', null), bytes)).toMatchObject({ sequence: 1, sizeBytes: snapshot.byteLength });
    expect(bytes.reads).toBeGreaterThan(0);
  });

  it('other bytes of the same size are no retry (hashed to tell)', async () => {
    const same = new WatchedBytes(snapshot);
    same[same.length - 1] = same[same.length - 1]! ^ 0xff;
    expect(await ingestedAlready(storage, upload('snapshot', null), same)).toBeNull();
    expect(same.reads).toBeGreaterThan(0);
  });

  it('a new snapshot of another size is no retry, and its bytes are not read', async () => {
    const other = new WatchedBytes(await snapshotBytes(AGENT, { records: 9 }));
    expect(other.byteLength).not.toBe(snapshot.byteLength);
    expect(await ingestedAlready(storage, upload('snapshot', null), other)).toBeNull();
    expect(other.reads).toBe(0);
  });

  it('a new delta of another size at the same base is no retry, and its bytes are not read', async () => {
    const other = new WatchedBytes(await deltaBytes(AGENT, 0, 22, { rawBytes: 100 }));
    expect(await ingestedAlready(storage, upload('delta', 0), other)).toBeNull();
    expect(other.reads).toBe(0);
  });
});
