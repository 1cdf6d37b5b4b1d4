import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { findDamagedBlobs, findUnledgeredBlobs, getAgent, openLedger, recoverUnledgered, registerAgent } from './index';
import { historyIndexer, ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-000000000001';

it('recovers an agent whose registration was lost with its commits, in order, to the same index', async () => {
  const t = tempLedger();
  try {
    const dbFile = path.join(t.dir, 'lineage.db');
    closeDatabase(t.ledger.db);
    const empty = fs.readFileSync(dbFile); // the database as it was before the lost commits
    let ledger = openLedger(t.dir);
    registerAgent({ ledger, id: AGENT, name: 'lost one', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-01-01T00:00:00Z') });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
    for (let seq = 1; seq <= 3; seq++) await ingestDelta({ ledger, agentId: AGENT, baseSequence: seq - 1, bytes: await deltaBytes(AGENT, seq - 1, seq), now: new Date() });
    const { ledger_entries: _entries, ...expected } = dumpIndex(ledger);
    closeDatabase(ledger.db);
    fs.writeFileSync(dbFile, empty);
    fs.rmSync(`${dbFile}-wal`, { force: true });
    fs.rmSync(`${dbFile}-shm`, { force: true });

    ledger = openLedger(t.dir);
    t.ledger.db = ledger.db;
    expect(getAgent({ ledger, agentId: AGENT })).toBeNull();
    expect((await findUnledgeredBlobs(ledger)).map((b) => [b.sequence, b.kind, b.chains]))
      .toEqual([[0, 'snapshot', true], [1, 'delta', true], [2, 'delta', true], [3, 'delta', true]]);
    const recovered = await recoverUnledgered(ledger, historyIndexer);
    expect(recovered.map((r) => [r.sequence, r.recovered])).toEqual([[0, true], [1, true], [2, true], [3, true]]);
    expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ name: 'test agent', tenant_id: null, latest_sequence: 3 });
    const { ledger_entries: _again, ...after } = dumpIndex(ledger);
    expect(after.record_versions).toHaveLength((expected.record_versions as unknown[]).length);
    expect(await findUnledgeredBlobs(ledger)).toEqual([]);
    expect(await findDamagedBlobs(ledger)).toEqual([]);
  } finally {
    t.cleanup();
  }
});

it('a blob that does not continue the ledger is listed, not recovered, and kept', async () => {
  const t = tempLedger();
  try {
    const { ledger } = t;
    registerAgent({ ledger, id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
    // A gap: sequence 2 with no 1 (a race loser or a stray copy, not a lost commit).
    await ledger.blobs.put(`${AGENT}/2-00000000deadbeef.alf-delta`, await deltaBytes(AGENT, 1, 2));
    expect((await findUnledgeredBlobs(ledger)).map((b) => [b.sequence, b.chains])).toEqual([[2, false]]);
    expect(await recoverUnledgered(ledger, historyIndexer)).toEqual([]);
    expect(await ledger.blobs.exists(`${AGENT}/2-00000000deadbeef.alf-delta`)).toBe(true);
  } finally {
    t.cleanup();
  }
});

it('an upload that lost the sequence race takes its blob away: no blob is left without an entry', async () => {
  const t = tempLedger();
  try {
    const { ledger } = t;
    registerAgent({ ledger, id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
    const bodies = await Promise.all([1, 2, 3, 4].map((n) => deltaBytes(AGENT, 0, n)));
    // Two identical uploads among them: they share one blob key, which the winner keeps.
    bodies.push(bodies[0]!);
    const outcomes = await Promise.allSettled(bodies.map((bytes) => ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes, now: new Date() })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await findUnledgeredBlobs(ledger)).toEqual([]);
    expect(await findDamagedBlobs(ledger)).toEqual([]);
    expect(fs.readdirSync(path.join(t.dir, 'blobs'))).toHaveLength(2);
  } finally {
    t.cleanup();
  }
});
