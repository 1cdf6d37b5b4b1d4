/**
 * Entries appended before their fold (pending-index.ts): the index a catch-up leaves is the index
 * the same history gets when every entry is indexed in its own append; an ingest folds its agent's
 * pending entries first (the delta checks read the stored tree); every verb of the embedded
 * storage that reads the index folds them before it answers; the rebuild empties them; a catch-up
 * killed inside its fold leaves the entry pending and the index as it was.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { writeDeltaRead } from '@/lib/core/archive/write-delta';
import type { FsBlobStore } from '@/lib/ledger/blob-store';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { writeSnapshotRead } from '@/lib/core/archive';
import type { AlfSnapshot, ArchiveLimits } from '@/lib/core/archive/types';
import { listEntries } from '@/lib/ledger';
import { RecordChecks } from '@/lib/ledger/record-checks';
import type { MemoryRecord } from '@/lib/core/record';
import { embeddedStorage } from '@/lib/storage/embedded';
import type { LineageStorage } from '@/lib/storage/types';
import { rebuildIndex } from './rebuild';
import { backgroundCatchUp, catchUpIndex, indexPending, runBackgroundCatchUp } from './pending-index';
import { HistoryGenerator, lineOf } from './testing/generator';
import { dumpIndex, tempLedger } from './testing/temp-ledger';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-0000000000a1';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function ledgerWith(seed: number, deferIndexFrom: number | undefined, handWritten = false) {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const gen = new HistoryGenerator(t.ledger, AGENT, seed);
  gen.deferIndexFrom = deferIndexFrom;
  gen.handWritten = handWritten;
  gen.register();
  return { ...t, gen };
}

const pendingRows = (t: { ledger: ReturnType<typeof tempLedger>['ledger'] }) =>
  t.ledger.db.sqlite.prepare('SELECT seq, kind FROM index_pending ORDER BY agent_id, seq, kind').all() as { seq: number; kind: string }[];

/** `turns` random turns (moves, edits, deletes, raw files, a rollover every 9th) on both ledgers. */
async function twins(seed: number, turns: number, deferIndexFrom: number, handWritten = false) {
  const deferred = ledgerWith(seed, deferIndexFrom, handWritten);
  const inline = ledgerWith(seed, undefined);
  const afterEach: { seq: number; kind: string }[][] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (const t of [deferred, inline]) {
      t.gen.randomMutations();
      await t.gen.sync(turn, { rollover: turn > 0 && turn % 9 === 0 });
    }
    afterEach.push(pendingRows(deferred));
  }
  return { deferred, inline, afterEach };
}

describe('the index of entries folded after their append', () => {
  it('every entry deferred: each ingest folds the one before it, and the catch-up leaves exactly the index of the same history indexed at once', async () => {
    const { deferred, inline, afterEach } = await twins(5, 30, 1);
    // At most the newest entry waits: every ingest caught its agent up before its checks.
    for (const [turn, rows] of afterEach.entries()) {
      const latest = deferred.gen.turns[turn]!;
      expect(rows).toEqual([{ seq: latest.seq, kind: latest.kind }]);
    }
    expect(dumpIndex(deferred.ledger)).not.toEqual(dumpIndex(inline.ledger));
    expect(await catchUpIndex(deferred.ledger)).toBe(1);
    expect(indexPending(deferred.ledger.db.sqlite)).toBe(false);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
    // The rebuild of either gives the same again.
    await rebuildIndex({ ledger: deferred.ledger });
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  });

  it('large entries deferred and small ones indexed at once, in one history: the same index', async () => {
    const { deferred, inline, afterEach } = await twins(8, 30, 4);
    expect(afterEach.some((rows) => rows.length === 0)).toBe(true); // small turns were indexed in their append
    expect(afterEach.some((rows) => rows.length === 1)).toBe(true);
    await catchUpIndex(deferred.ledger);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  });

  it('uploads handed over as written (a local sync\'s: snapshots and deltas checked as written, not read back, when deferred): the same entries and, caught up, the same index', async () => {
    const { deferred, inline } = await twins(21, 24, 4, true);
    await catchUpIndex(deferred.ledger);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
    const entries = (t: typeof inline) => t.ledger.db.sqlite.prepare('SELECT seq, kind, sha256, size_bytes FROM ledger_entries ORDER BY seq, kind').all();
    expect(entries(deferred)).toEqual(entries(inline));
  });

  for (const handWritten of [false, true]) {
  it(`a delta is checked against the stored tree at its base once the base is folded: one that makes a file of the base a directory is refused${handWritten ? ' (handed over as written too; and one past the reader\'s limits is refused as the reader refuses it)' : ''}`, async () => {
    const t = ledgerWith(3, 1);
    const twin = ledgerWith(3, undefined);
    for (const g of [t.gen, twin.gen]) {
      g.addRecord('MEMORY.md');
      await g.sync(0);
    }
    expect(pendingRows(t)).toEqual([{ seq: 0, kind: 'snapshot' }]);
    expect(t.gen.workspaceAt.get(0)!.has('MEMORY.md')).toBe(true);
    const { bytes: bad, written } = await writeDeltaRead({
      manifest: { alf_version: '1.0.0', created_at: '2026-03-03T00:00:00Z', agent: { id: AGENT }, sync: { base_sequence: 0, new_sequence: 0 } },
      entries: [], layers: {}, rawChanged: new Map([['raw/openclaw/MEMORY.md/inner.md', new TextEncoder().encode('x\n')]]), rawDeleted: [],
    });
    const now = new Date('2026-03-03T00:00:00Z');
    const handed = handWritten ? { written } : {};
    await expect(ingestDelta({ ledger: t.ledger, agentId: AGENT, baseSequence: 0, bytes: bad, now, deferIndexFrom: 1, ...handed }))
      .rejects.toMatchObject({ code: 'bad_archive', message: expect.stringContaining('"MEMORY.md" is both a file and a directory') });
    // Refused once the base was folded (the check reads it): nothing of the refused delta stays.
    expect(pendingRows(t)).toEqual([]);
    expect(dumpIndex(t.ledger)).toEqual(dumpIndex(twin.ledger));
    if (!handWritten) return;
    // Past a reader's limit: refused by the reader, as the same bytes without their written delta.
    const big = await writeDeltaRead({
      manifest: { alf_version: '1.0.0', created_at: '2026-03-03T00:00:00Z', agent: { id: AGENT }, sync: { base_sequence: 0, new_sequence: 0 } },
      entries: [], layers: {}, rawChanged: new Map([['raw/openclaw/memory/big.md', new Uint8Array(4096).fill(0x61)]]), rawDeleted: [],
    });
    const limits = { maxEntryUncompressedBytes: 1024 };
    const refusal = (params: object) => ingestDelta({ ledger: t.ledger, agentId: AGENT, baseSequence: 0, bytes: big.bytes, now, deferIndexFrom: 1, limits, ...params }).then(() => null, (e: Error) => e);
    const [plain, asWritten] = [await refusal({}), await refusal({ written: big.written })];
    expect(plain).toMatchObject({ code: 'bad_archive', message: expect.stringContaining('per-entry limit') });
    expect(asWritten).toEqual(plain);
    expect(dumpIndex(t.ledger)).toEqual(dumpIndex(twin.ledger));
  });
  }

  it('a snapshot handed over as written is refused exactly as its bytes are: a record the ingest refuses (named by its place in the archive), a path that is a file and a directory, one past a reader\'s limit', async () => {
    const t = ledgerWith(4, 1);
    const g = t.gen;
    for (let i = 0; i < 6; i++) g.addRecord();
    const now = new Date('2026-03-03T00:00:00Z');
    const refusal = async (snapshot: AlfSnapshot, limits?: Partial<ArchiveLimits>) => {
      const { bytes, written } = await writeSnapshotRead(snapshot, { recordLines: snapshot.records.map(lineOf) });
      expect(written).not.toBeNull();
      const ingest = (params: object) => ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now, deferIndexFrom: 1, limits, ...params }).then(() => null, (e: Error) => e);
      const [plain, asWritten] = [await ingest({}), await ingest({ written: written! })];
      expect(plain).toMatchObject({ code: 'bad_archive' });
      expect(asWritten).toEqual(plain);
      return plain!.message;
    };
    // The records in an order the archive does not keep (its partitions are by quarter): the
    // refused one is named by the place a reader meets it at. (Records given with their lines are
    // taken as checked, WriteSnapshotOptions.recordLines: a sync's are, checkedRecordLines.)
    const records = g.records.map((r, i) => ({ ...r, temporal: { created_at: i % 2 === 0 ? '2026-05-01T00:00:00Z' : '2026-02-01T00:00:00Z' } }));
    // Given Q2, Q1, Q2, Q1, …; the archive holds Q1's first: the fourth given is the second met.
    records[3] = { ...records[3]!, content: 'a NUL \u0000 here' };
    expect(await refusal({ ...g.snapshotOf(), records })).toMatch(/^refused: record 2: content holds a NUL character/);
    const raw = new Map([['raw/openclaw/notes.md', new Uint8Array([0x61])], ['raw/openclaw/notes.md/inner.md', new Uint8Array([0x62])]]);
    expect(await refusal({ ...g.snapshotOf(), raw })).toContain('"raw/openclaw/notes.md" is both a file and a directory');
    const big = new Map([['raw/openclaw/memory/big.md', new Uint8Array(4096).fill(0x61)]]);
    expect(await refusal({ ...g.snapshotOf(), raw: big }, { maxEntryUncompressedBytes: 1024 })).toContain('per-entry limit');
    expect(listEntries({ ledger: t.ledger, agentId: AGENT })).toEqual([]);
  });

  it('records checked as their lines were made (record-checks.ts): refused exactly as the bytes are, and not walked again by the ingest; checks that do not cover the very records written are not taken', async () => {
    const t = ledgerWith(4, 1);
    const g = t.gen;
    for (let i = 0; i < 6; i++) g.addRecord();
    const now = new Date('2026-03-03T00:00:00Z');
    /** Each record behind a proxy that counts what is read of it while `counting`. */
    let reads = 0;
    let counting = false;
    const counted = (record: MemoryRecord) => new Proxy(record, { get: (target, key, receiver) => {
      if (counting) reads++;
      return Reflect.get(target, key, receiver);
    } });
    /** The checks made for the array `over`: each of `made` (default: `over`'s) in order, then their lines. */
    const checksOver = (over: MemoryRecord[], made = over) => {
      const checked = new RecordChecks(over);
      for (const record of made) checked.check(record);
      checked.done(made.map(lineOf));
      return checked;
    };
    const ingest = async (records: MemoryRecord[], checked?: RecordChecks) => {
      const { bytes, written } = await writeSnapshotRead({ ...g.snapshotOf(), records }, { recordLines: records.map(lineOf) });
      const attempt = (params: object) => ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now, deferIndexFrom: 1, ...params }).then(() => null, (e: Error) => e);
      const plain = await attempt({});
      reads = 0;
      counting = true;
      const asWritten = await attempt({ written: written!, checked });
      counting = false;
      return { plain, asWritten, reads };
    };
    // Given Q2, Q1, Q2, Q1, …; the archive holds Q1's first: the fourth given (refused) is the second met.
    const records = g.records.map((r, i) => counted({ ...r, temporal: { created_at: i % 2 === 0 ? '2026-05-01T00:00:00Z' : '2026-02-01T00:00:00Z' } }));
    const bad = [...records];
    bad[3] = counted({ ...records[3]!, content: 'a NUL \u0000 here' });
    bad[0] = counted({ ...records[0]!, id: 'not-a-uuid' }); // refused too, given first, met fourth
    const refused = await ingest(bad, checksOver(bad));
    expect(refused.plain).toMatchObject({ code: 'bad_archive', message: expect.stringMatching(/^refused: record 2: content holds a NUL character/) });
    expect(refused.asWritten).toEqual(refused.plain);

    // Checks made for another array (the records before one was spoilt), made of other records than
    // the array's, or of only some of them: not taken, every record is checked again.
    for (const checked of [checksOver([...records]), checksOver(bad, records), checksOver(bad, bad.slice(0, 3))]) {
      const again = await ingest(bad, checked);
      expect(again.asWritten).toEqual(refused.plain);
      expect(again.reads).toBeGreaterThan(0);
    }
    expect(listEntries({ ledger: t.ledger, agentId: AGENT })).toEqual([]);

    // Checks that cover them: the verdict is taken, nothing of a record is read again. (A backslash
    // before "u0000" is no NUL: its line holds the text `\\u0000`, and the record is walked for it then.)
    records[1] = counted({ ...records[1]!, content: 'a path C:\\u0000 is no NUL' });
    const taken = await ingest(records, checksOver(records));
    expect(taken.plain).toBeNull();
    expect(taken.reads).toBe(0);
    expect(listEntries({ ledger: t.ledger, agentId: AGENT }).map((e) => e.seq)).toEqual([0, 1]);
  });

  it('a snapshot handed over as written is checked as written, not read back (its fold deferred); read back when its fold is not', async () => {
    const t = ledgerWith(6, 1);
    for (let i = 0; i < 4; i++) t.gen.addRecord();
    const now = new Date('2026-03-03T00:00:00Z');
    const snapshot = t.gen.snapshotOf();
    const { bytes, written } = await writeSnapshotRead(snapshot, { recordLines: snapshot.records.map(lineOf) });
    // A written form that says another agent than the bytes: what is checked is what refuses.
    const other = { ...written!, parts: { ...written!.parts, manifest: { ...written!.parts.manifest, agent: { id: '7b0f3c2e-2222-4a2b-8c3d-0000000000ff' } } } };
    await expect(ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now, deferIndexFrom: 1, written: other }))
      .rejects.toMatchObject({ message: expect.stringContaining('0000000000ff') });
    // Not deferred (too few records for it): the bytes are read, and they are this agent's.
    expect((await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now, deferIndexFrom: 1000, written: other })).sequence).toBe(0);
  });

  for (const served of [false, true]) {
  it(`a pending entry whose blob is damaged: readers answer from the index as it stands, an ingest is refused blob_corrupt, nothing changes${served ? ' (a serving storage: folds on its ingest thread)' : ''}`, async () => {
    const t = ledgerWith(55, 1);
    for (let turn = 0; turn < 3; turn++) {
      t.gen.randomMutations();
      await t.gen.sync(turn);
    }
    const [entry] = t.ledger.db.sqlite.prepare('SELECT e.blob_key FROM index_pending p JOIN ledger_entries e USING (agent_id, seq, kind)').all() as { blob_key: string }[];
    // Its file as the blob store keeps it (whole, or packed against the one before it).
    const whole = (t.ledger.blobs as FsBlobStore).pathOf(entry!.blob_key);
    const file = fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!;
    fs.writeFileSync(path.join(path.dirname(whole), file), 'not the blob');
    const before = dumpIndex(t.ledger);
    const storage = embeddedStorage(t.ledger);
    if (served) {
      const maintenance = storage.startMaintenance({ log: () => {}, clock: () => new Date() });
      cleanups.push(() => void maintenance.stop());
    }
    expect((await storage.getSequences({ agentId: AGENT }))!.items).toHaveLength(3);
    expect((await storage.getRecordsAt({ agentId: AGENT, at: 1 }))!.total).toBeGreaterThan(0);
    t.gen.randomMutations();
    await expect(t.gen.sync(3)).rejects.toMatchObject({ code: 'blob_corrupt' });
    expect(dumpIndex(t.ledger)).toEqual(before);
    expect(indexPending(t.ledger.db.sqlite)).toBe(true);
    // Another agent's pending entries are folded all the same.
    const other = new HistoryGenerator(t.ledger, '7b0f3c2e-2222-4a2b-8c3d-0000000000ff', 56);
    other.deferIndexFrom = 1;
    other.register();
    other.randomMutations();
    await other.sync(0);
    expect(indexPending(t.ledger.db.sqlite, other.agentId)).toBe(true);
    expect((await storage.getSequences({ agentId: other.agentId }))!.items).toHaveLength(1);
    expect(indexPending(t.ledger.db.sqlite, other.agentId)).toBe(false);
    expect(indexPending(t.ledger.db.sqlite, AGENT)).toBe(true);
  });
  }

  it('the rebuild empties the pending entries and gives the index of the same history indexed at once', async () => {
    const { deferred, inline } = await twins(13, 12, 1);
    await rebuildIndex({ ledger: deferred.ledger });
    expect(pendingRows(deferred)).toEqual([]);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  });

  it('a catch-up killed inside its fold leaves the entry pending and the index as it was; the next catch-up folds it', async () => {
    const { deferred, inline } = await twins(21, 10, 1);
    const before = dumpIndex(deferred.ledger);
    const bin = path.resolve(__dirname, '../../bin/lineage.mjs');
    const child = spawn(process.execPath, [bin, 'index', '--catch-up', '--data', deferred.dir], {
      env: { ...process.env, LINEAGE_INDEX_CRASH_AT: 'folded' }, stdio: 'ignore',
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    expect(pendingRows(deferred)).toHaveLength(1);
    expect(dumpIndex(deferred.ledger)).toEqual(before);
    expect(await catchUpIndex(deferred.ledger)).toBe(1);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  }, 120_000);
});

/**
 * Every verb of the embedded storage, each named here as one that reads the index (and so folds
 * the pending entries before it answers) or one that does not: a verb added to the storage and to
 * neither list fails the first test, like a route that skips the tenant guard.
 */
const READS_INDEX: Record<string, (s: LineageStorage, seq: number) => Promise<unknown>> = {
  listEntries: (s) => s.listEntries({ agentId: AGENT }),
  getEntry: (s) => s.getEntry({ agentId: AGENT, entryId: 'none' }),
  listAgentsWithStats: (s) => s.listAgentsWithStats({ now: new Date('2026-04-01T00:00:00Z') }),
  getAgentWithStats: (s) => s.getAgentWithStats({ agentId: AGENT, now: new Date('2026-04-01T00:00:00Z') }),
  indexNotice: (s) => s.indexNotice({ agentId: AGENT }),
  getAgentMemoryDto: (s) => s.getAgentMemoryDto({ agentId: AGENT }),
  getSequences: (s) => s.getSequences({ agentId: AGENT }),
  getSequence: (s, seq) => s.getSequence({ agentId: AGENT, seq }),
  getSequenceRaw: (s, seq) => s.getSequenceRaw({ agentId: AGENT, seq }),
  getSequenceOps: (s, seq) => s.getSequenceOps({ agentId: AGENT, seq, op: 'update' }),
  sequenceAt: (s) => s.sequenceAt({ agentId: AGENT, time: new Date('2026-04-01T00:00:00Z') }),
  getRecordsAt: (s) => s.getRecordsAt({ agentId: AGENT }),
  getRecordLineage: (s) => s.getRecordLineage({ agentId: AGENT, recordId: 'none' }),
  getChanges: (s) => s.getChanges({ since: new Date('2026-01-01T00:00:00Z') }),
  getWorkspaceTree: (s, seq) => s.getWorkspaceTree({ agentId: AGENT, seq }),
  getWorkspaceFile: (s, seq) => s.getWorkspaceFile({ agentId: AGENT, seq, path: 'MEMORY.md' }),
  downloadFiles: (s, seq) => s.downloadFiles({ agentId: AGENT, seq }),
  search: (s) => s.search({ q: 'memory' }),
  compareWorkspace: (s, seq) => s.compareWorkspace({ agentId: AGENT, from: 0, to: seq }),
  getFileBlame: (s, seq) => s.getFileBlame({ agentId: AGENT, seq, path: 'MEMORY.md' }),
  getDatabaseRecords: (s, seq) => s.getDatabaseRecords({ agentId: AGENT, seq }),
};
const READS_NO_INDEX = [
  'backend', 'ledger', 'blobs', 'uploads', 'blobDownloadUrl', 'registerAgent', 'getAgent', 'listAgents', 'deleteAgent', 'listDeletedAgents', 'removeLeftovers',
  'ingestSnapshot', 'ingestDelta', 'restorePlan', 'readEntryBytes', 'readPlanArchives', 'rebuildIndex', 'createApiKey',
  'listApiKeys', 'countApiKeys', 'revokeApiKey', 'handOverAgents', 'rotateApiKey', 'identifyKey', 'keyIdentityById', 'newerSchema', 'sessionKeyIdentity', 'endSession', 'startMaintenance', 'close',
];

describe('the embedded storage folds pending entries before it reads the index', () => {
  it('every verb is named as reading the index or not', () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const verbs = Object.keys(Object.getOwnPropertyDescriptors(embeddedStorage(t.ledger))).sort();
    expect(verbs).toEqual([...Object.keys(READS_INDEX), ...READS_NO_INDEX].sort());
  });

  for (const [verb, call] of Object.entries(READS_INDEX)) {
    it(`${verb} answers from the index with the newest entry folded`, async () => {
      const t = ledgerWith(34, 1);
      for (let turn = 0; turn < 3; turn++) {
        t.gen.randomMutations();
        await t.gen.sync(turn);
      }
      expect(indexPending(t.ledger.db.sqlite, AGENT)).toBe(true);
      await call(embeddedStorage(t.ledger), t.gen.latest!);
      expect(indexPending(t.ledger.db.sqlite)).toBe(false);
    });
  }
});

describe('waiting for the fold without blocking the event loop', () => {
  const bin = path.resolve(__dirname, '../../bin/lineage.mjs');
  const catchUpProcess = (dir: string, env: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [bin, 'index', '--catch-up', '--data', dir], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const done = new Promise<Record<string, unknown>>((resolve) => child.on('close', () => resolve(JSON.parse(stdout.trim() || '{}') as Record<string, unknown>)));
    return { child, done };
  };

  it('while the background catch-up holds its marker, a reader waits for it on timers and folds nothing itself; a second catch-up process exits at once', async () => {
    const { deferred, inline } = await twins(89, 4, 1);
    const first = catchUpProcess(deferred.dir, { LINEAGE_INDEX_STOP_AT: 'marked' });
    cleanups.push(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL'); });
    await waitUntil('the catch-up process stopped holding its marker', () => first.child.pid !== undefined && isStopped(first.child.pid));
    expect(backgroundCatchUp(deferred.dir)).toBe(first.child.pid);
    // A second one leaves the work to the first.
    expect(await catchUpProcess(deferred.dir).done).toEqual({ ok: true, folded: 0 });
    expect(pendingRows(deferred)).toHaveLength(1);
    let ticks = 0;
    const interval = setInterval(() => ticks++, 5);
    try {
      let answered = false;
      const read = embeddedStorage(deferred.ledger).getSequences({ agentId: AGENT }).then((r) => { answered = true; return r; });
      await waitUntil('the reader waited through 20 timer ticks', () => ticks >= 20);
      expect(answered).toBe(false);
      expect(pendingRows(deferred)).toHaveLength(1); // not folded here
      process.kill(first.child.pid!, 'SIGCONT');
      expect(await first.done).toEqual({ ok: true, folded: 1 });
      expect((await read)!.items).toHaveLength(4);
    } finally {
      clearInterval(interval);
    }
    expect(backgroundCatchUp(deferred.dir)).toBeNull();
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  }, 120_000);

  it('a serving storage (maintenance started) folds what no background catch-up is folding on its ingest thread: its own connection writes none of it', async () => {
    const { deferred, inline } = await twins(61, 6, 1);
    expect(pendingRows(deferred)).toHaveLength(1);
    const sqlite = deferred.ledger.db.sqlite;
    const written = sqlite.prepare('SELECT total_changes()').pluck() as Database.Statement<[], number>;
    const storage = embeddedStorage(deferred.ledger);
    const before = written.get()!;
    const maintenance = storage.startMaintenance({ log: () => {}, clock: () => new Date() });
    try {
      expect((await storage.getSequences({ agentId: AGENT }))!.items).toHaveLength(6);
      expect(pendingRows(deferred)).toHaveLength(0);
      expect(written.get()).toBe(before);
      // Entries appended while it serves: an ingest's catch-up of its agent goes to the thread too.
      for (let turn = 6; turn < 9; turn++) {
        deferred.gen.randomMutations();
        await deferred.gen.sync(turn);
        inline.gen.randomMutations();
        await inline.gen.sync(turn);
      }
      const appended = written.get()!;
      expect(pendingRows(deferred)).toHaveLength(1);
      expect((await storage.getChanges({ since: new Date('2026-01-01T00:00:00Z') })).groups.length).toBeGreaterThan(0);
      expect(pendingRows(deferred)).toHaveLength(0);
      expect(written.get()).toBe(appended);
      expect(appended).toBeGreaterThan(before);
    } finally {
      await maintenance.stop();
    }
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  }, 60_000);

  it('a marker a killed catch-up left behind is replaced; another process holding the write lock is waited for on timers', async () => {
    const { deferred, inline } = await twins(144, 4, 1);
    fs.writeFileSync(path.join(deferred.dir, 'index-catch-up.pid'), '999999999\n');
    expect(backgroundCatchUp(deferred.dir)).toBeNull();
    // Another connection holds the write lock until a timer of this process lets it go.
    const other = new Database(path.join(deferred.dir, 'lineage.db'));
    cleanups.push(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    // SQLite's own busy wait would block this thread for as long as the connection allows: ten minutes here.
    deferred.ledger.db.sqlite.pragma('busy_timeout = 600000');
    let ticks = 0;
    const interval = setInterval(() => ticks++, 5);
    try {
      const caughtUp = runBackgroundCatchUp(deferred.ledger);
      await waitUntil('20 timer ticks with the lock held', () => ticks >= 20);
      expect(pendingRows(deferred)).toHaveLength(1);
      other.exec('COMMIT');
      expect(await caughtUp).toBe(1);
    } finally {
      clearInterval(interval);
    }
    expect(fs.existsSync(path.join(deferred.dir, 'index-catch-up.pid'))).toBe(false);
    expect(deferred.ledger.db.sqlite.pragma('busy_timeout', { simple: true })).toBe(600000);
    expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  }, 60_000);
});
