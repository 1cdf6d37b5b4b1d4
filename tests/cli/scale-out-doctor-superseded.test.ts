/**
 * `lineage doctor` on the scale-out storage (PostgreSQL + radosgw) without `--repair` gives the embedded
 * doctor's verdict on a lost commit the ingest refuses as built on another entry than its base (machine
 * A's delta on the head B's --force-first-sync replaced; tests/cli/doctor-superseded.test.ts is the data
 * directory's): reported, `superseded: true`, ok. It said `superseded: []` and ok false (exit 1) — "lost
 * commit … run `lineage doctor --repair`" — for what --repair would only refuse.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '@/lib/core/uuid';
import { blobKey } from '@/lib/ledger/ingest-shared';
import { supersedeArchives } from '@/lib/ledger/testing/superseded-archives';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, s3Env } from '@/tests/engines/use-engines';
import { runCli } from './run-cli';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-0000000000e1';
const { snapshot, delta } = supersedeArchives(AGENT);
let env: Record<string, string> = {};
let storage: LineageStorage;

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  env = { ...s3Env(settings), LINEAGE_SECRET: 'cd'.repeat(32), LINEAGE_DATA: '/nonexistent-lineage-data', LINEAGE_DATABASE_URL: url, LINEAGE_BLOB_URL: `s3://${bucket}/svc` };
  storage = await openStorage(storageConfigFrom(env));
}, 120_000);

afterAll(async () => {
  await storage?.close();
});

it('reports the superseded lost commits without --repair and is ok, as on a data directory', async () => {
  await storage.registerAgent({ id: AGENT, name: 'two machines', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date('2026-05-01T00:00:00Z') });
  await storage.ingestDelta({ agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00Z', 1), now: new Date('2026-05-02T00:00:00Z') });
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
  // A's deltas 2 and 3, on its own 1 (2026-05-02): their objects written, their commits lost.
  const keys: string[] = [];
  for (const [seq, bytes] of [[2, await delta(1, '2026-05-02T00:00:00Z', 2)], [3, await delta(2, '2026-05-02T12:00:00Z', 3)]] as const) {
    const key = blobKey(AGENT, seq, 'delta', sha256Hex(bytes));
    await storage.blobs.put(key, bytes);
    keys.push(key);
  }
  const doctor = await runCli(['doctor'], env);
  expect(doctor.stderr).toContain(`lost commit not to re-ingest: agent ${AGENT} sequence 2 (delta) has a blob but no ledger entry, and it was built on the head that the full snapshot at sequence 1 replaced`);
  expect(doctor.stderr).toContain(`lost commit not to re-ingest: agent ${AGENT} sequence 3 (delta) has a blob but no ledger entry, and it continues the lost commit at sequence 2`);
  expect(doctor.json).toMatchObject({
    ok: true,
    unledgered: [
      { agent_id: AGENT, sequence: 2, kind: 'delta', key: keys[0], chains: true, superseded: true },
      { agent_id: AGENT, sequence: 3, kind: 'delta', key: keys[1], chains: true, superseded: true },
    ],
  });
  expect(doctor.code).toBe(0);
}, 120_000);
