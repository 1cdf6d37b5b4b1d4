import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { closeDatabase } from '@/db/client';
import type { LedgerEntryRow } from '@/db/schema';
import { isStopped, waitUntil } from './testing/packer-process';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { sha256Hex } from '@/lib/core/uuid';
import { deleteAgent, findDamagedBlobs, findUnledgeredBlobs, FsBlobStore, getAgent, listEntries, openLedger, recoverUnledgered, registerAgent, type Ledger } from './index';
import { blobKey } from './ingest-shared';
import { supersedeArchives } from './testing/superseded-archives';
import { runCli } from '@/tests/cli/run-cli';
import { findDeletedLeftovers, removeDeletedLeftovers } from './consistency';
import { historyIndexer, ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-000000000001';
const BIN = path.resolve(__dirname, '../../bin/lineage.mjs');

/**
 * Runs `work` on the temp ledger's database and then takes its commits away, as a lost WAL would (the
 * database file put back as it was before, `-wal` and `-shm` gone): its blobs stay. Returns what
 * `work` returned and the ledger reopened on the database as it was.
 */
async function lostCommits<T>(t: ReturnType<typeof tempLedger>, work: (ledger: Ledger) => Promise<T>): Promise<{ result: T; ledger: Ledger }> {
  const dbFile = path.join(t.dir, 'lineage.db');
  closeDatabase(t.ledger.db);
  const before = fs.readFileSync(dbFile);
  let ledger = openLedger(t.dir);
  const result = await work(ledger);
  closeDatabase(ledger.db);
  fs.writeFileSync(dbFile, before);
  fs.rmSync(`${dbFile}-wal`, { force: true });
  fs.rmSync(`${dbFile}-shm`, { force: true });
  ledger = openLedger(t.dir);
  t.ledger.db = ledger.db;
  return { result, ledger };
}

it('recovers an agent whose registration was lost with its commits, in order, to the same index', async () => {
  const t = tempLedger();
  try {
    const createdAts = (ledger: Ledger) => listEntries({ ledger, agentId: AGENT }).map((e) => [e.seq, e.kind, e.manifest_created_at]);
    let appended: unknown[] = [];
    const { result: expected, ledger } = await lostCommits(t, async (ledger) => {
      registerAgent({ ledger, id: AGENT, name: 'lost one', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-01-01T00:00:00Z') });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
      for (let seq = 1; seq <= 3; seq++) await ingestDelta({ ledger, agentId: AGENT, baseSequence: seq - 1, bytes: await deltaBytes(AGENT, seq - 1, seq), now: new Date() });
      appended = createdAts(ledger);
      const { ledger_entries: _entries, ...index } = dumpIndex(ledger);
      return index;
    });

    expect(getAgent({ ledger, agentId: AGENT })).toBeNull();
    expect((await findUnledgeredBlobs(ledger)).map((b) => [b.sequence, b.kind, b.chains]))
      .toEqual([[0, 'snapshot', true], [1, 'delta', true], [2, 'delta', true], [3, 'delta', true]]);
    const recovered = await recoverUnledgered(ledger, historyIndexer);
    expect(recovered.map((r) => [r.sequence, r.recovered])).toEqual([[0, true], [1, true], [2, true], [3, true]]);
    expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ name: 'test agent', tenant_id: null, latest_sequence: 3 });
    const { ledger_entries: _again, ...after } = dumpIndex(ledger);
    expect(after.record_versions).toHaveLength((expected.record_versions as unknown[]).length);
    // Rebuilt from their blobs, the entries have the manifest created_at their appends wrote (the superseded-base rule reads it).
    expect(appended.every((e) => typeof (e as unknown[])[2] === 'string')).toBe(true);
    expect(createdAts(ledger)).toEqual(appended);
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

describe('a deleted agent whose delete was interrupted', () => {
  /** Deletes AGENT while a directory stands where its delete marks `key` (EISDIR): the rows go, every blob stays. */
  async function deleteLeavingBlobs(ledger: Ledger, dir: string, key: string): Promise<void> {
    const inTheWay = `${(ledger.blobs as FsBlobStore).pathOf(key)}.deleting`;
    fs.mkdirSync(inTheWay);
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await deleteAgent({ ledger, agentId: AGENT, now: new Date('2026-02-01T00:00:00Z') })).toEqual({ deleted: true, objects_removed: 0 });
    } finally {
      warn.mockRestore();
      fs.rmSync(inTheWay, { recursive: true });
    }
    expect(fs.readdirSync(path.join(dir, 'blobs')).some((n) => n.startsWith(AGENT))).toBe(true);
  }

  it('registered again: its old blobs stay leftovers and go with --repair; a lost commit of the new one is still recovered', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'first life', sourceRuntime: 'openclaw', tenantId: 'tenant-a', now: new Date() });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
      for (let seq = 1; seq <= 2; seq++) await ingestDelta({ ledger, agentId: AGENT, baseSequence: seq - 1, bytes: await deltaBytes(AGENT, seq - 1, seq), now: new Date() });
      const old = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries ORDER BY seq').pluck().all() as string[];
      await deleteLeavingBlobs(ledger, t.dir, old[0]!);

      // The same id again, by the same tenant: a snapshot of other bytes, then a delta whose commit is lost.
      expect(registerAgent({ ledger, id: AGENT, name: 'second life', sourceRuntime: 'openclaw', tenantId: 'tenant-a', now: new Date() })).not.toBe('exists');
      const fresh = await deltaBytes(AGENT, 0, 9);
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT, { records: 5 }), now: new Date() });
      const lostKey = `${AGENT}/1-${sha256Hex(fresh).slice(0, 16)}.alf-delta`;
      await ledger.blobs.put(lostKey, fresh);

      expect((await findDeletedLeftovers(ledger)).map((b) => b.key)).toEqual(old);
      expect((await findUnledgeredBlobs(ledger)).map((b) => [b.key, b.chains])).toEqual([[lostKey, true]]);
      // The new agent is at sequence 0: a snapshot of it may still land at 0 and a delta at 1 — with the old bytes,
      // at the old keys (its blob written before the write lock is asked for). Those two are kept; the one at 2 goes.
      const first = await removeDeletedLeftovers(ledger);
      expect(first.map((r) => [r.key, r.removed])).toEqual([[old[0], false], [old[1], false], [old[2], true]]);
      expect(first[0]!.error).toMatch(/is registered again and may still upload at sequence 0: the blob is kept/);
      expect((await recoverUnledgered(ledger, historyIndexer)).map((r) => [r.sequence, r.recovered])).toEqual([[1, true]]);
      expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ name: 'second life', tenant_id: 'tenant-a', latest_sequence: 1 });
      // At sequence 1 the old snapshot at 0 can land no more; the old delta at 1 neither (its place is taken).
      expect((await removeDeletedLeftovers(ledger)).map((r) => [r.key, r.removed])).toEqual([[old[0], true], [old[1], true]]);
      expect(await findDamagedBlobs(ledger)).toEqual([]);
      expect(await findDeletedLeftovers(ledger)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it('registered again: an old blob the new agent stored again (same bytes, same sequence: the same key) is its own, not a leftover', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'first life', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      const bytes = await snapshotBytes(AGENT);
      await ingestSnapshot({ ledger, agentId: AGENT, bytes, now: new Date() });
      const [key] = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries').pluck().all() as string[];
      await deleteLeavingBlobs(ledger, t.dir, key!);
      expect((await findDeletedLeftovers(ledger)).map((b) => b.key)).toEqual([key]);

      registerAgent({ ledger, id: AGENT, name: 'second life', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes, now: new Date() });
      expect(ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries').pluck().all()).toEqual([key]);
      expect(await findDeletedLeftovers(ledger)).toEqual([]);
      expect(await removeDeletedLeftovers(ledger)).toEqual([]);
      expect(await findDamagedBlobs(ledger)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it('registered again and synced, then a lost WAL took that registration and its commit: the acknowledged blob is no leftover and is never removed', async () => {
    const t = tempLedger();
    try {
      registerAgent({ ledger: t.ledger, id: AGENT, name: 'first life', sourceRuntime: 'openclaw', tenantId: 'tenant-a', now: new Date() });
      await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
      expect(await deleteAgent({ ledger: t.ledger, agentId: AGENT, now: new Date('2026-02-01T00:00:00Z') })).toEqual({ deleted: true, objects_removed: 1 });
      // The same id again, and a snapshot the server acknowledged (other bytes: another key than the deletion recorded);
      // then a power cut leaves the database with the deletion and nothing after.
      const { result: kept, ledger } = await lostCommits(t, async (ledger) => {
        registerAgent({ ledger, id: AGENT, name: 'second life', sourceRuntime: 'openclaw', tenantId: 'tenant-a', now: new Date() });
        await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT, { records: 5 }), now: new Date() });
        return (ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries').pluck().all() as string[])[0];
      });

      expect(await findDeletedLeftovers(ledger)).toEqual([]);
      expect((await findUnledgeredBlobs(ledger)).map((b) => b.key)).toEqual([kept]);
      expect(await removeDeletedLeftovers(ledger)).toEqual([]);
      // Not registered again from it either (the deleted id): listed, refused in words, and kept.
      const recovered = await recoverUnledgered(ledger, historyIndexer);
      expect(recovered).toMatchObject([{ agent_id: AGENT, sequence: 0, kind: 'snapshot', recovered: false, error: expect.stringMatching(/was deleted at 2026-02-01T00:00:00\.000Z: it is not registered again from a blob it left/) }]);
      expect(await ledger.blobs.exists(kept!)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('doctor --repair stopped between its look and its removal: registering the id again and uploading the same blob waits for it, and the acknowledged blob stays', async () => {
    const t = tempLedger();
    let doctor: ChildProcess | null = null;
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'first life', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      const bytes = await snapshotBytes(AGENT);
      const { blobKey: key } = await ingestSnapshot({ ledger, agentId: AGENT, bytes, now: new Date() });
      await deleteLeavingBlobs(ledger, t.dir, key);
      expect((await findDeletedLeftovers(ledger)).map((b) => b.key)).toEqual([key]);

      // A `lineage doctor --repair` process stops itself (SIGSTOP) once it has looked at the leftover again.
      doctor = spawn(process.execPath, [BIN, 'doctor', '--repair', '--data', t.dir], { env: { ...process.env, LINEAGE_DOCTOR_STOP_AT: 'recheck' }, stdio: ['ignore', 'pipe', 'ignore'] });
      let stdout = '';
      doctor.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((resolve) => doctor!.once('exit', resolve));
      await waitUntil('the doctor stops between its look and its removal', () => isStopped(doctor!.pid!));
      // The same id registered again (a local sync): the doctor holds the write lock, so SQLite's busy wait ends in a refusal.
      let waited = false;
      try {
        registerAgent({ ledger, id: AGENT, name: 'second life', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      } catch (error) {
        expect(String(error)).toMatch(/locked|busy/i);
        waited = true;
      }
      // Without the lock the same bytes land at the same key now, acknowledged, before the doctor goes on.
      if (!waited) await ingestSnapshot({ ledger, agentId: AGENT, bytes, now: new Date() });
      doctor.kill('SIGCONT');
      await exited;
      if (waited) {
        registerAgent({ ledger, id: AGENT, name: 'second life', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
        await ingestSnapshot({ ledger, agentId: AGENT, bytes, now: new Date() });
      }
      const [entry] = ledger.db.sqlite.prepare('SELECT * FROM ledger_entries').all() as LedgerEntryRow[];
      expect(entry!.blob_key).toBe(key);
      expect(await findDamagedBlobs(ledger)).toEqual([]);
      expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true, removed: [{ key, removed: true }] });
    } finally {
      if (doctor && doctor.exitCode === null) doctor.kill('SIGKILL');
      t.cleanup();
    }
  }, 120_000);

  it('a delete killed in its removal loop: the marks it left beside blobs already gone are removed by --repair too', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'killed', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
      await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(AGENT, 0, 1), now: new Date() });
      const keys = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries ORDER BY seq').pluck().all() as string[];
      await deleteLeavingBlobs(ledger, t.dir, keys[0]!);
      // What FsBlobStore.deleteMany leaves when killed after removing the first blob: every mark, one blob gone.
      const store = ledger.blobs as FsBlobStore;
      for (const key of keys) fs.writeFileSync(`${store.pathOf(key)}.deleting`, '');
      fs.rmSync(store.pathOf(keys[0]!));
      expect((await findDeletedLeftovers(ledger)).map((b) => b.key)).toEqual([keys[1]]);
      expect((await removeDeletedLeftovers(ledger)).map((r) => [r.key, r.removed])).toEqual([[keys[1], true]]);
      expect(fs.readdirSync(path.join(t.dir, 'blobs')).filter((n) => n.startsWith(AGENT))).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});

describe('doctor --repair: a lost commit of a delta built on the head a snapshot replaced at its base sequence', () => {
  const { snapshot, delta } = supersedeArchives(AGENT);

  /** Snapshot 0, A's delta 1 and B's --force-first-sync at 1 (made at 2026-05-03), as committed entries. */
  async function replacedAtOne(ledger: Ledger): Promise<void> {
    registerAgent({ ledger, id: AGENT, name: 'two machines', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date('2026-05-01T00:00:00Z') });
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00Z', 1), now: new Date('2026-05-02T00:00:00Z') });
  }

  /** A blob stored as the ingest stores it, its entry never committed. */
  async function lostBlob(ledger: Ledger, seq: number, kind: 'delta' | 'snapshot', bytes: Uint8Array): Promise<string> {
    const key = blobKey(AGENT, seq, kind, sha256Hex(bytes));
    await ledger.blobs.put(key, bytes);
    return key;
  }

  const entries = (ledger: Ledger) => listEntries({ ledger, agentId: AGENT }).map((e) => `${e.seq}:${e.kind}`);

  it('A\'s delta, older than B\'s snapshot, is not folded onto it: a finding naming the superseded base, nothing stored, its blob kept', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      await replacedAtOne(ledger);
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
      // A's next delta, cut from its own delta 1 (its base_timestamp before B's snapshot), stored but never committed.
      const key = await lostBlob(ledger, 2, 'delta', await delta(1, '2026-05-02T00:00:00Z', 2));
      expect((await findUnledgeredBlobs(ledger)).map((b) => [b.sequence, b.kind, b.chains])).toEqual([[2, 'delta', true]]);
      const recovered = await recoverUnledgered(ledger, historyIndexer);
      expect(recovered).toEqual([{
        agent_id: AGENT, sequence: 2, kind: 'delta', recovered: false, superseded: true,
        error: 'it was built on the head that the full snapshot at sequence 1 replaced (a snapshot stored after its base: '
          + 'another machine\'s lineage sync --force-first-sync): its delta-manifest.json sync.base_timestamp 2026-05-02T00:00:00Z is older than '
          + 'that snapshot\'s manifest.json created_at 2026-05-03T00:00:00Z; re-ingested, its changes would be folded onto a snapshot '
          + 'they were not made from, so it is not; its blob is kept. The machine that made it is told so at its next lineage sync '
          + '(lineage sync --rebase uploads its workspace onto the head)',
      }]);
      expect(entries(ledger)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
      expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ latest_sequence: 1, latest_snapshot_seq: 1 });
      expect(await ledger.blobs.exists(key)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('lineage doctor --repair says so and keeps the blob, ok (nothing to bring back: tests/cli/doctor-superseded.test.ts); the next run says it again', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      await replacedAtOne(ledger);
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
      const key = await lostBlob(ledger, 2, 'delta', await delta(1, '2026-05-02T00:00:00Z', 2));
      closeDatabase(ledger.db);
      for (let run = 0; run < 2; run++) {
        const doctor = await runCli(['doctor', '--repair', '--data', t.dir]);
        expect(doctor.code).toBe(0);
        expect(doctor.stderr).not.toContain(`lost commit: agent ${AGENT}`);
        expect(doctor.stderr).toContain(`not re-ingested: agent ${AGENT} sequence 2 (delta): it was built on the head that the full snapshot at sequence 1 replaced`);
        expect(doctor.json).toMatchObject({ ok: true, recovered: [{ agent_id: AGENT, sequence: 2, kind: 'delta', recovered: false, superseded: true }] });
      }
      const reopened = openLedger(t.dir);
      t.ledger.db = reopened.db;
      expect(entries(reopened)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
      expect(await reopened.blobs.exists(key)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('B\'s snapshot lost with it: the snapshot is re-ingested first, A\'s delta then refused; B\'s own next delta is re-ingested', async () => {
    for (const next of ['A', 'B'] as const) {
      const t = tempLedger();
      try {
        const { ledger } = t;
        await replacedAtOne(ledger);
        await lostBlob(ledger, 1, 'snapshot', await snapshot('2026-05-03T00:00:00Z', '# B\n'));
        await lostBlob(ledger, 2, 'delta', await delta(1, next === 'A' ? '2026-05-02T00:00:00Z' : '2026-05-03T00:00:00Z', 2));
        const recovered = await recoverUnledgered(ledger, historyIndexer);
        expect(recovered.map((r) => [r.sequence, r.kind, r.recovered, r.superseded ?? false])).toEqual([[1, 'snapshot', true, false], [2, 'delta', next === 'B', next === 'A']]);
        expect(entries(ledger)).toEqual(next === 'A' ? ['0:snapshot', '1:delta', '1:snapshot'] : ['0:snapshot', '1:delta', '1:snapshot', '2:delta']);
      } finally {
        t.cleanup();
      }
    }
  });

  it('a delta head made after the lost delta\'s base (a history that went on from a backup): not folded onto it, a finding naming that delta, its blob kept', async () => {
    const t = tempLedger();
    try {
      const { ledger } = t;
      registerAgent({ ledger, id: AGENT, name: 'restored', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
      await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date('2026-05-01T00:00:00Z') });
      // The delta at 1 another machine made on 2026-05-03; the lost one was cut from an entry at 1 of 2026-05-02.
      await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-03T00:00:00Z', 1), now: new Date('2026-05-03T00:00:00Z') });
      const key = await lostBlob(ledger, 2, 'delta', await delta(1, '2026-05-02T00:00:00Z', 2));
      expect(await recoverUnledgered(ledger, historyIndexer)).toEqual([{
        agent_id: AGENT, sequence: 2, kind: 'delta', recovered: false, superseded: true,
        error: 'it was not built on the delta at sequence 1 (that delta was made after its base: the agent\'s history went on from an earlier '
          + 'sequence, e.g. storage restored from a backup): its delta-manifest.json sync.base_timestamp 2026-05-02T00:00:00Z is older than '
          + 'that delta\'s delta-manifest.json created_at 2026-05-03T00:00:00Z; re-ingested, its changes would be folded onto an entry '
          + 'they were not made from, so it is not; its blob is kept. The machine that made it is told so at its next lineage sync '
          + '(lineage sync --rebase uploads its workspace onto the head)',
      }]);
      expect(entries(ledger)).toEqual(['0:snapshot', '1:delta']);
      expect(await ledger.blobs.exists(key)).toBe(true);
    } finally {
      t.cleanup();
    }
  });
});
