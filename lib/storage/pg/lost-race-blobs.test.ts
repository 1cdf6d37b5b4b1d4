/**
 * An upload that loses the sequence race on the scale-out backend writes nothing to the bucket's
 * final keys: the blob is written under the agent's row lock, after the sequence check passed
 * (ingest.ts). Two storages (two pools, as two processes would have) race 24 deltas at one base,
 * several rounds, on the run's real PostgreSQL 15 + radosgw: one wins each round, every loser is
 * `stale_sequence` with the winner's sequence, and the bucket holds exactly the ledger's blobs.
 * Also: an identical retry of the winning bytes is a stale loser that leaves the winner's blob alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { sha256Hex } from '@/lib/core/uuid';
import { isLedgerError } from '@/lib/ledger/errors';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';

const AGENT = '7d7d7d7d-4444-4a2b-8c3d-00000000a001';
const CLIENTS = 24;
const ROUNDS = 3;
let storages: LineageStorage[] = [];

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const location = { bucket, prefix: 'svc' };
  storages = await Promise.all([0, 1].map(async () => {
    const client = testS3Client(settings);
    return scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, location), client, location });
  }));
  await storages[0]!.registerAgent({ id: AGENT, name: 'race', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storages[0]!.ingestSnapshot({ agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
});
afterAll(async () => {
  await Promise.all(storages.map((s) => s.close()));
});

/** The bucket's final keys and the ledger's blob keys, each sorted. */
async function keysAndEntries(): Promise<{ keys: string[]; entries: string[] }> {
  const entries = (await storages[0]!.listEntries({ agentId: AGENT })).map((e) => e.blob_key).sort();
  return { keys: await storages[1]!.blobs.list(), entries };
}

describe('the sequence race on PostgreSQL + S3', () => {
  it(`${CLIENTS} deltas at one base over two pools: one entry, ${CLIENTS - 1} stale with the winner's sequence, no loser's blob in the bucket`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const base = round;
      const bodies = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => deltaBytes(AGENT, base, round * 100 + c)));
      const outcomes = await Promise.allSettled(bodies.map((bytes, c) =>
        storages[c % 2]!.ingestDelta({ agentId: AGENT, baseSequence: base, bytes, now: new Date() })));
      const won = outcomes.flatMap((o, c) => (o.status === 'fulfilled' ? [{ c, sequence: o.value.sequence }] : []));
      expect(won).toHaveLength(1);
      expect(won[0]!.sequence).toBe(base + 1);
      for (const o of outcomes.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
        expect(isLedgerError(o.reason, 'stale_sequence')).toBe(true);
        expect(o.reason.latest).toBe(base + 1);
      }
      const entry = (await storages[1]!.listEntries({ agentId: AGENT })).at(-1)!;
      expect(entry.sha256).toBe(sha256Hex(bodies[won[0]!.c]!));
      const { keys, entries } = await keysAndEntries();
      expect(keys).toEqual(entries);
    }
  });

  it('the winning bytes sent again at the old base: stale, and the winner\'s blob is still there', async () => {
    const base = (await storages[0]!.getAgent({ agentId: AGENT }))!.latest_sequence!;
    const bytes = await deltaBytes(AGENT, base, 999);
    await storages[0]!.ingestDelta({ agentId: AGENT, baseSequence: base, bytes, now: new Date() });
    const again = await storages[1]!.ingestDelta({ agentId: AGENT, baseSequence: base, bytes, now: new Date() }).then(() => null, (e: unknown) => e);
    expect(isLedgerError(again, 'stale_sequence')).toBe(true);
    const { keys, entries } = await keysAndEntries();
    expect(keys).toEqual(entries);
    const last = (await storages[0]!.listEntries({ agentId: AGENT })).at(-1)!;
    expect(Buffer.from(await storages[1]!.readEntryBytes({ entry: last })).equals(Buffer.from(bytes))).toBe(true);
  });
});
