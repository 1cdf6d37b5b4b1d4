/**
 * `lineage doctor`'s verdict on a lost commit the ingest refuses as built on another entry than its
 * base (machine A's delta on the head machine B's --force-first-sync replaced; README "Outgrowing one
 * machine"). Nothing readable depends on it, its blob is kept, and A is told at its next sync: doctor
 * reports it and is ok — at once, with or without --repair, and the same once the agent's next delta is
 * stored (then the blob no longer continues the ledger). A lost commit --repair can bring back is still
 * a problem (ok false) until it is re-ingested.
 */
import { afterEach, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { sha256Hex } from '@/lib/core/uuid';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { listEntries, openLedger, registerAgent, type Ledger } from '@/lib/ledger';
import { blobKey } from '@/lib/ledger/ingest-shared';
import { supersedeArchives } from '@/lib/ledger/testing/superseded-archives';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { runCli } from './run-cli';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-0000000000d1';
const { snapshot, delta } = supersedeArchives(AGENT);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Snapshot 0, A's delta 1, B's --force-first-sync at 1 (2026-05-03); A's deltas 2 and 3 (on its own 1, 2026-05-02) stored, never committed. */
async function supersededLoss(lost: 'A' | 'B' = 'A'): Promise<{ dir: string; keys: string[] }> {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const { ledger } = t;
  registerAgent({ ledger, id: AGENT, name: 'two machines', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
  await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date('2026-05-01T00:00:00Z') });
  await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00Z', 1), now: new Date('2026-05-02T00:00:00Z') });
  await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
  const keys: string[] = [];
  const blobs = lost === 'A'
    ? [[2, await delta(1, '2026-05-02T00:00:00Z', 2)], [3, await delta(2, '2026-05-02T12:00:00Z', 3)]] as const
    // B's own next delta, built on its snapshot.
    : [[2, await delta(1, '2026-05-03T00:00:00Z', 2)]] as const;
  for (const [seq, bytes] of blobs) {
    const key = blobKey(AGENT, seq, 'delta', sha256Hex(bytes));
    await ledger.blobs.put(key, bytes);
    keys.push(key);
  }
  closeDatabase(ledger.db);
  return { dir: t.dir, keys };
}

function withLedger<T>(dir: string, work: (ledger: Ledger) => Promise<T> | T): Promise<T> {
  const ledger = openLedger(dir);
  return Promise.resolve(work(ledger)).finally(() => closeDatabase(ledger.db));
}

const entries = (dir: string) => withLedger(dir, (ledger) => listEntries({ ledger, agentId: AGENT }).map((e) => `${e.seq}:${e.kind}`));
const BUILT_ON_REPLACED = 'it was built on the head that the full snapshot at sequence 1 replaced';

it('doctor reports the superseded lost commits and is ok at once: nothing to bring back, the blobs kept', async () => {
  const { dir, keys } = await supersededLoss();
  const doctor = await runCli(['doctor', '--data', dir]);
  expect(doctor.stderr).toContain(`lost commit not to re-ingest: agent ${AGENT} sequence 2 (delta) has a blob but no ledger entry, and ${BUILT_ON_REPLACED}`);
  expect(doctor.stderr).toContain(`lost commit not to re-ingest: agent ${AGENT} sequence 3 (delta) has a blob but no ledger entry, and it continues the lost commit at sequence 2`);
  expect(doctor.stderr).not.toContain('lineage doctor --repair` with the server stopped to re-ingest');
  expect(doctor.json).toMatchObject({
    ok: true,
    unledgered: [
      { agent_id: AGENT, sequence: 2, kind: 'delta', key: keys[0], chains: true, superseded: true },
      { agent_id: AGENT, sequence: 3, kind: 'delta', key: keys[1], chains: true, superseded: true },
    ],
  });
  expect(doctor.code).toBe(0);
});

it('doctor --repair says it does not re-ingest them and is ok, twice; the ledger and the blobs unchanged', async () => {
  const { dir, keys } = await supersededLoss();
  for (let run = 0; run < 2; run++) {
    const doctor = await runCli(['doctor', '--repair', '--data', dir]);
    expect(doctor.stderr).toContain(`not re-ingested: agent ${AGENT} sequence 2 (delta): ${BUILT_ON_REPLACED}`);
    expect(doctor.json).toMatchObject({
      ok: true,
      recovered: [
        { agent_id: AGENT, sequence: 2, kind: 'delta', recovered: false, superseded: true },
        { agent_id: AGENT, sequence: 3, kind: 'delta', recovered: false },
      ],
      unledgered: [{ sequence: 2, superseded: true }, { sequence: 3, superseded: true }],
    });
    expect(doctor.code).toBe(0);
  }
  expect(await entries(dir)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
  expect(await withLedger(dir, async (ledger) => Promise.all(keys.map((k) => ledger.blobs.exists(k))))).toEqual([true, true]);
});

it('the same verdict after the agent\'s next delta (the blobs no longer continue the ledger)', async () => {
  const { dir } = await supersededLoss();
  await withLedger(dir, async (ledger) => {
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-05-03T00:00:00Z', 9), now: new Date('2026-05-04T00:00:00Z') });
  });
  const doctor = await runCli(['doctor', '--data', dir]);
  expect(doctor.json).toMatchObject({ ok: true });
  expect(doctor.code).toBe(0);
});

it('a lost commit built on the head (B\'s own next delta) is still a problem until --repair re-ingests it', async () => {
  const { dir } = await supersededLoss('B');
  const check = await runCli(['doctor', '--data', dir]);
  expect(check.stderr).toContain(`lost commit: agent ${AGENT} sequence 2 (delta) has a blob but no ledger entry`);
  expect(check.stderr).not.toContain('lost commit not to re-ingest');
  expect(check.json).toMatchObject({ ok: false, unledgered: [{ sequence: 2, chains: true }] });
  expect((check.json as { unledgered: object[] }).unledgered[0]).not.toHaveProperty('superseded');
  expect(check.code).toBe(1);
  const repair = await runCli(['doctor', '--repair', '--data', dir]);
  expect(repair.json).toMatchObject({ ok: true, recovered: [{ sequence: 2, kind: 'delta', recovered: true }] });
  expect(await entries(dir)).toEqual(['0:snapshot', '1:delta', '1:snapshot', '2:delta']);
});
