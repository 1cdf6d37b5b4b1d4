/**
 * The scale-out ingest re-checks the head under the agent's row lock (ingest.ts, lib/ledger/ingest-base.ts):
 * machine B's snapshot stored at the base sequence after machine A's delta passed its checks, before
 * A's delta took the lock, refuses A's delta (`base_superseded`) — it was built before that snapshot
 * existed — and none of A's delta reaches the bucket. The order is made with the row lock itself: a
 * third connection holds it while B's snapshot, then A's delta, queue behind it (PostgreSQL hands a
 * row lock to its waiters in turn). Real PostgreSQL 15 + radosgw.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supersedeArchives } from '@/lib/ledger/testing/superseded-archives';
import { isLedgerError } from '@/lib/ledger/errors';
import { blobKey } from '@/lib/ledger/ingest-shared';
import { sha256Hex } from '@/lib/core/uuid';
import { recoverUnledgeredObjects } from '@/lib/storage/consistency';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import type { LineageStorage } from '../types';

const AGENT = '7d7d7d7d-4444-4a2b-8c3d-00000000b501';
let storage: LineageStorage;
let admin: pg.Client;

const { snapshot, delta } = supersedeArchives(AGENT);

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  storage = await openStorage(storageConfigFrom(scaleOutEnv(url, bucket, settings)));
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await storage.registerAgent({ id: AGENT, name: 'race', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date() });
  await storage.ingestDelta({ agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00Z', 1), now: new Date() });
}, 120_000);
afterAll(async () => {
  await admin?.end();
  await storage?.close();
});

/** Resolves once `n` connections wait for a lock (the agent's row, held by `admin`). */
async function waitersReach(n: number): Promise<void> {
  for (;;) {
    // `admin` is in its transaction, whose view of pg_stat_activity is taken once: taken again.
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
    if (Number(rows[0]!.n) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('B\'s snapshot committed at the base sequence between A\'s checks and A\'s append: A\'s delta is refused, nothing of it in the bucket', async () => {
  const [snapshotB, deltaA] = await Promise.all([snapshot('2026-05-03T00:00:00Z', '# B\n'), delta(1, '2026-05-04T00:00:00Z', 2)]);
  await admin.query('BEGIN');
  await admin.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [AGENT]);
  const storingB = storage.ingestSnapshot({ agentId: AGENT, bytes: snapshotB, now: new Date() });
  await waitersReach(1);
  // A's delta passes its checks now (the head at 1 is still A's delta) and queues behind B's snapshot.
  const pushingA = storage.ingestDelta({ agentId: AGENT, baseSequence: 1, bytes: deltaA, now: new Date() }).then(() => null, (error: unknown) => error);
  await waitersReach(2);
  await admin.query('COMMIT');
  expect((await storingB).sequence).toBe(1);
  const refused = await pushingA;
  expect(isLedgerError(refused, 'base_superseded')).toBe(true);
  expect((refused as Error).message).toMatch(/^the head of agent .* at sequence 1 is a full snapshot uploaded after the base this delta was built on \(that snapshot was stored while this delta was being ingested\)/);
  const entries = await storage.listEntries({ agentId: AGENT });
  expect(entries.map((e) => `${e.seq}:${e.kind}`)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
  expect((await storage.blobs.list()).sort()).toEqual(entries.map((e) => e.blob_key).sort());
}, 120_000);

it('doctor --repair on the bucket: a lost commit of A\'s delta on the head B\'s snapshot replaced is not re-ingested onto it, its object kept', async () => {
  const agent = '7d7d7d7d-4444-4a2b-8c3d-00000000b502';
  const archives = supersedeArchives(agent);
  await storage.registerAgent({ id: agent, name: 'doctor', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await storage.ingestSnapshot({ agentId: agent, bytes: await archives.snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date() });
  await storage.ingestDelta({ agentId: agent, baseSequence: 0, bytes: await archives.delta(0, '2026-05-01T00:00:00Z', 1), now: new Date() });
  await storage.ingestSnapshot({ agentId: agent, bytes: await archives.snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date() });
  // A's next delta, cut from its own delta 1: its object stored, its entry never committed.
  const bytes = await archives.delta(1, '2026-05-02T00:00:00Z', 2);
  const key = blobKey(agent, 2, 'delta', sha256Hex(bytes));
  await storage.blobs.put(key, bytes);
  const recovered = (await recoverUnledgeredObjects(storage)).filter((r) => r.agent_id === agent);
  expect(recovered).toMatchObject([{ sequence: 2, kind: 'delta', recovered: false, superseded: true }]);
  expect(recovered[0]!.error).toMatch(/^it was built on the head that the full snapshot at sequence 1 replaced .*: its delta-manifest\.json sync\.base_timestamp 2026-05-02T00:00:00Z is older than that snapshot's manifest\.json created_at 2026-05-03T00:00:00Z; .*its blob is kept/);
  expect((await storage.listEntries({ agentId: agent })).map((e) => `${e.seq}:${e.kind}`)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
  expect(await storage.blobs.exists(key)).toBe(true);
}, 120_000);
