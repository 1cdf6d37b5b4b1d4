/**
 * The superseded-base rule on the scale-out backend reads the `created_at` of the entry at a delta's
 * base from that entry's row (`ledger_entries.manifest_created_at`, pg migration 0008), not from its
 * object in the bucket (an S3 GET per delta ingest before): every append writes it; an entry
 * appended before the column (NULL) has its object read as before, and the delta's append that is
 * taken fills the row in its own transaction. `doctor --repair`'s re-ingest writes it too. The
 * embedded ledger's cases: lib/ledger/ingest-base.test.ts. Real PostgreSQL 15 + radosgw.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordBlobReads, supersedeArchives } from '@/lib/ledger/testing/superseded-archives';
import { isLedgerError } from '@/lib/ledger/errors';
import { blobKey } from '@/lib/ledger/ingest-shared';
import { sha256Hex } from '@/lib/core/uuid';
import { recoverUnledgeredObjects } from '@/lib/storage/consistency';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import type { LineageStorage } from '../types';

let storage: LineageStorage;
let admin: pg.Client;

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  storage = await openStorage(storageConfigFrom(scaleOutEnv(url, bucket, settings)));
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
}, 120_000);
afterAll(async () => {
  await admin?.end();
  await storage?.close();
});

/** An agent with a snapshot at 0 and a delta at 1, both made at 2026-05-01T00:00:00Z (the snapshot's as +02:00). */
async function agentWithDeltaAtOne(agentId: string) {
  const archives = supersedeArchives(agentId);
  await storage.registerAgent({ id: agentId, name: 'head', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storage.ingestSnapshot({ agentId, bytes: await archives.snapshot('2026-05-01T02:00:00+02:00', '# A\n'), now: new Date() });
  await storage.ingestDelta({ agentId, baseSequence: 0, bytes: await archives.delta(0, '2026-05-01T00:00:00Z', 1), now: new Date() });
  return archives;
}

const rows = async (agentId: string) => (await storage.listEntries({ agentId })).map((e) => `${e.seq}:${e.kind}:${String(e.manifest_created_at)}`);

const refusal = (pushing: Promise<unknown>) => pushing.then(() => null, (error: unknown) => error);

it('a delta is judged on the head\'s row: no object read, a stale one refused, one built on the head taken, on a delta head and a snapshot head', async () => {
  const agent = '7d7d7d7d-5555-4a2b-8c3d-00000000c501';
  const { snapshot, delta } = await agentWithDeltaAtOne(agent);
  const { reads, restore } = recordBlobReads(storage.blobs);
  try {
    const stale = await refusal(storage.ingestDelta({ agentId: agent, baseSequence: 1, bytes: await delta(1, '2026-04-30T23:59:59.999Z', 2), now: new Date() }));
    expect(isLedgerError(stale, 'base_superseded')).toBe(true);
    expect((stale as Error).message).toContain('sync.base_timestamp 2026-04-30T23:59:59.999Z is older than that delta\'s delta-manifest.json created_at 2026-05-01T00:00:00Z');
    await storage.ingestDelta({ agentId: agent, baseSequence: 1, bytes: await delta(1, '2026-05-01T00:00:00Z', 2), now: new Date() });
    await storage.ingestSnapshot({ agentId: agent, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date() });
    const superseded = await refusal(storage.ingestDelta({ agentId: agent, baseSequence: 2, bytes: await delta(2, '2026-05-02T00:00:00Z', 3), now: new Date() }));
    expect(isLedgerError(superseded, 'base_superseded')).toBe(true);
    expect((superseded as Error).message).toContain('older than that snapshot\'s manifest.json created_at 2026-05-03T00:00:00Z');
    await storage.ingestDelta({ agentId: agent, baseSequence: 2, bytes: await delta(2, '2026-05-03T00:00:00Z', 3), now: new Date() });
    expect(reads).toEqual([]);
  } finally {
    restore();
  }
  expect(await rows(agent)).toEqual(['0:snapshot:2026-05-01T02:00:00+02:00', '1:delta:2026-05-01T00:00:00Z', '2:delta:2026-05-01T00:00:00Z',
    '2:snapshot:2026-05-03T00:00:00Z', '3:delta:2026-05-03T00:00:00Z']);
}, 120_000);

it('a database from before the column (NULL): the head\'s object is read, the rule refuses and takes as before, and the append taken fills the head\'s row', async () => {
  const agent = '7d7d7d7d-5555-4a2b-8c3d-00000000c502';
  const { delta } = await agentWithDeltaAtOne(agent);
  await admin.query('UPDATE ledger_entries SET manifest_created_at = NULL WHERE agent_id = $1', [agent]);
  const head = (await storage.listEntries({ agentId: agent }))[1]!;
  const { reads, restore } = recordBlobReads(storage.blobs);
  try {
    const stale = await refusal(storage.ingestDelta({ agentId: agent, baseSequence: 1, bytes: await delta(1, '2026-04-30T00:00:00Z', 2), now: new Date() }));
    expect(isLedgerError(stale, 'base_superseded')).toBe(true);
    expect((stale as Error).message).toContain('sync.base_timestamp 2026-04-30T00:00:00Z is older than that delta\'s delta-manifest.json created_at 2026-05-01T00:00:00Z');
    expect(reads).toEqual([head.blob_key]);
    expect(await rows(agent)).toEqual(['0:snapshot:null', '1:delta:null']);
    await storage.ingestDelta({ agentId: agent, baseSequence: 1, bytes: await delta(1, '2026-05-01T00:00:00Z', 2), now: new Date() });
    expect(reads).toEqual([head.blob_key, head.blob_key]);
    expect(await rows(agent)).toEqual(['0:snapshot:null', '1:delta:2026-05-01T00:00:00Z', '2:delta:2026-05-01T00:00:00Z']);
    await storage.ingestDelta({ agentId: agent, baseSequence: 2, bytes: await delta(2, '2026-05-01T00:00:00Z', 3), now: new Date() });
    expect(reads.length).toBe(2);
  } finally {
    restore();
  }
}, 120_000);

it('doctor --repair: a lost commit re-ingested from its object gets its row\'s manifest_created_at', async () => {
  const agent = '7d7d7d7d-5555-4a2b-8c3d-00000000c503';
  const { delta } = await agentWithDeltaAtOne(agent);
  // A delta's object stored, its entry never committed.
  const bytes = await delta(1, '2026-05-02T00:00:00.25+01:00', 2);
  await storage.blobs.put(blobKey(agent, 2, 'delta', sha256Hex(bytes)), bytes);
  const recovered = (await recoverUnledgeredObjects(storage)).filter((r) => r.agent_id === agent);
  expect(recovered).toMatchObject([{ sequence: 2, kind: 'delta', recovered: true }]);
  expect(await rows(agent)).toEqual(['0:snapshot:2026-05-01T02:00:00+02:00', '1:delta:2026-05-01T00:00:00Z', '2:delta:2026-05-02T00:00:00.25+01:00']);
}, 120_000);
