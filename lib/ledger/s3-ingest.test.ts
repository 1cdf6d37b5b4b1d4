/**
 * Today's ingest over the S3 blob store (SQLite index, blobs in radosgw): the BlobStore seam
 * already carries the write, the race and the read-back; the entries' bytes come back from S3
 * exactly, by sha256.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeDelta } from '@/lib/core/archive';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { sha256Hex } from '@/lib/core/uuid';
import { freshBucket, testS3Client, useRadosgw } from '@/tests/engines/use-engines';
import { isLedgerError, listEntries, readEntryBytes, restorePlan, type Ledger } from './index';
import { ingestDelta } from '@/lib/storage/embedded-ingest';
import { S3BlobStore } from './s3-blob-store';

const AGENT = '7b0f3c2e-1111-4a2b-8c3d-00000000053a';
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

// The gateway starts once per run (~15 s); wait for it under the hook timeout, not a test's.
beforeAll(() => useRadosgw());

async function s3Ledger(): Promise<{ ledger: Ledger; store: S3BlobStore; gen: HistoryGenerator }> {
  const { bucket, settings } = await freshBucket();
  const local = tempLedger();
  cleanups.push(local.cleanup);
  const store = new S3BlobStore(testS3Client(settings), { bucket, prefix: 'lineage' });
  const ledger: Ledger = { db: local.ledger.db, blobs: store };
  const gen = new HistoryGenerator(ledger, AGENT, 11);
  gen.register();
  return { ledger, store, gen };
}

describe('ingest with blobs on S3', () => {
  it('snapshots and deltas land in the bucket once each, and read back byte for byte', async () => {
    const { ledger, store, gen } = await s3Ledger();
    gen.addRecord();
    await gen.sync(0);
    for (let turn = 1; turn <= 4; turn++) {
      gen.randomMutations();
      await gen.sync(turn);
    }
    const entries = listEntries({ ledger, agentId: AGENT });
    expect(entries.length).toBeGreaterThanOrEqual(5);
    expect(await store.list(`${AGENT}/`)).toEqual(entries.map((entry) => entry.blob_key).sort());
    for (const entry of entries) {
      expect(sha256Hex(await readEntryBytes({ ledger, entry }))).toBe(entry.sha256);
    }
    const plan = restorePlan({ ledger, agentId: AGENT });
    expect(plan.sequence).toBe(entries[entries.length - 1]?.seq);
  });

  it('two uploads racing on one base: one entry, one stale_sequence, the winning blob in the bucket', async () => {
    const { ledger, store, gen } = await s3Ledger();
    gen.addRecord();
    await gen.sync(0);
    const delta = (content: string) => writeDelta({
      manifest: { alf_version: '1.0.0', created_at: '2026-03-02T00:00:00Z', agent: { id: AGENT }, sync: { base_sequence: 0, new_sequence: 0 } },
      entries: [{ operation: 'create', record: gen.newRecord('MEMORY.md', content) }], layers: {}, rawChanged: new Map(), rawDeleted: [],
    });
    const [one, two] = await Promise.all([delta('first writer'), delta('second writer')]);
    const now = new Date('2026-03-02T01:00:00Z');
    const outcomes = await Promise.allSettled([one, two].map((bytes) => ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes, now })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected');
    expect(lost?.status === 'rejected' && isLedgerError(lost.reason, 'stale_sequence')).toBe(true);
    expect(listEntries({ ledger, agentId: AGENT }).map((e) => e.seq)).toEqual([0, 1]);
    // A loser that got past the precheck left its blob (other bytes, so its own key): an orphan, never an entry.
    const atOne = await store.list(`${AGENT}/1-`);
    expect(atOne).toContain(listEntries({ ledger, agentId: AGENT })[1]?.blob_key);
    expect(atOne.length).toBeLessThanOrEqual(2);
  });
});
