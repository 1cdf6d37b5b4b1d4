import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { dumpIndex } from '@/lib/history/testing/temp-ledger';
import { rebuildIndex } from '@/lib/history/rebuild';
import { FsBlobStore, listEntries, openLedger, PACK_GROUP, readEntryBytes } from '@/lib/ledger';
import { packingPending, waitForPacker } from '@/lib/ledger/background-packer';
import { acquirePackerLock } from '@/lib/ledger/packer-lock';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

it('a local sync stores its blob whole; the sync that begins a packing group packs the complete groups (one a kill left half packed too), and every entry reads back as uploaded (packing inline)', async () => {
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock, { packing: 'inline' });
  const file = path.join(sb.workspace, 'MEMORY.md');
  const blobs = path.join(sb.dataDir, 'blobs');
  const packedFiles = async () => (await fsp.readdir(blobs)).filter((n) => n.endsWith('.packed'));
  const uploaded: Buffer[] = [];
  const ledger = openLedger(sb.dataDir);
  cleanups.unshift(async () => closeDatabase(ledger.db));
  const entryBytes = async () => Promise.all(listEntries({ ledger, agentId: agentIdOf(await fsp.readFile(path.join(sb.workspace, '.alf-agent-id'), 'utf8')) })
    .map(async (entry) => Buffer.from(await readEntryBytes({ ledger, entry }))));
  for (let seq = 0; seq <= PACK_GROUP; seq++) {
    await writeMemory(file, seq);
    const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    expect(out.sequence).toBe(seq);
    if (seq === PACK_GROUP - 1) {
      expect(await packedFiles()).toEqual([]);
      uploaded.push(...(await entryBytes()));
    }
  }
  // Sequence 64 began group 1: group 0's blobs (but its first) are packed, 64 is whole.
  const packed = await packedFiles();
  expect(packed.length).toBeGreaterThan(PACK_GROUP / 2);
  expect(packed.every((n) => Number(/~(\d+)-/.exec(n)![1]) < PACK_GROUP)).toBe(true);
  const after = await entryBytes();
  expect(after.slice(0, PACK_GROUP).map((b, i) => b.equals(uploaded[i]!))).toEqual(uploaded.map(() => true));
  expect(new FsBlobStore(blobs).fileOf(listEntries({ ledger, agentId: agentIdOf(await fsp.readFile(path.join(sb.workspace, '.alf-agent-id'), 'utf8')) }).at(-1)!.blob_key)).not.toMatch(/\.packed$/);
  const incremental = dumpIndex(ledger);
  await rebuildIndex({ ledger });
  expect(dumpIndex(ledger)).toEqual(incremental);

  // A pass a kill interrupted leaves blobs of group 0 whole (and its request taken): the pass at sequence 128 finishes it.
  const left = packed.slice(-3);
  for (const name of left) {
    const key = name.slice(0, -'.packed'.length).split('~').join('/');
    fs.writeFileSync(path.join(blobs, name.slice(0, -'.packed'.length)), await new FsBlobStore(blobs).get(key));
    fs.rmSync(path.join(blobs, name));
  }
  fs.rmSync(path.join(sb.dataDir, 'blob-packer.request.taken'), { force: true });
  for (let seq = PACK_GROUP + 1; seq <= 2 * PACK_GROUP; seq++) {
    await writeMemory(file, seq);
    expect((await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock })).sequence).toBe(seq);
  }
  const now = await packedFiles();
  for (const name of packed) expect(now, name).toContain(name);
  expect(now.filter((n) => Number(/~(\d+)-/.exec(n)![1]) >= PACK_GROUP).length).toBeGreaterThan(PACK_GROUP / 2);
  const all = await entryBytes();
  expect(all.slice(0, PACK_GROUP).map((b, i) => b.equals(uploaded[i]!))).toEqual(uploaded.map(() => true));
}, 240_000);

const agentIdOf = (text: string) => text.trim();

/** MEMORY.md as of sync `seq`: every sync changes it (and it grows), so each is a delta. */
const writeMemory = (file: string, seq: number) =>
  fsp.writeFile(file, `# Memory\n\n${Array.from({ length: seq + 3 }, (_, i) => `## Fact ${i}\nThe value of fact ${i} is ${i * 7 + seq}.\n`).join('\n')}`);

it('by default the sync that completes a group packs nothing itself: it starts a detached, low-priority packer process and returns; a request a held lock kept waiting is started by the next sync', async () => {
  const sb = await makeSandbox();
  cleanups.push(async () => {
    await waitForPacker(sb.dataDir);
    await sb.cleanup();
  });
  const log = path.join(sb.root, 'packer.log');
  process.env.LINEAGE_PACKER_LOG = log;
  // Above the niceness the tests run at (15): the packer must lower its own priority to it.
  process.env.LINEAGE_PACKER_NICE = '19';
  cleanups.push(async () => {
    delete process.env.LINEAGE_PACKER_LOG;
    delete process.env.LINEAGE_PACKER_NICE;
  });
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const file = path.join(sb.workspace, 'MEMORY.md');
  const blobs = path.join(sb.dataDir, 'blobs');
  const packedBelow = async (seq: number) => (await fsp.readdir(blobs)).filter((n) => n.endsWith('.packed') && Number(/~(\d+)-/.exec(n)![1]) < seq).length;
  const sync = async (seq: number) => {
    await writeMemory(file, seq);
    expect((await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock })).sequence).toBe(seq);
  };
  for (let seq = 0; seq < PACK_GROUP; seq++) await sync(seq);
  // This process holds the packer lock: the sync at 64 finds a packer "running", packs nothing and returns.
  const held = acquirePackerLock(sb.dataDir)!;
  await sync(PACK_GROUP);
  expect(await packedBelow(PACK_GROUP)).toBe(0);
  expect(packingPending(sb.dataDir)).toBe(true);
  held.release();
  // The next sync finds the request pending and no packer: it starts one, in another process.
  await sync(PACK_GROUP + 1);
  await waitForPacker(sb.dataDir);
  expect(await packedBelow(PACK_GROUP)).toBeGreaterThan(PACK_GROUP / 2);
  const runs = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; nice: number; packed: number });
  expect(runs).toHaveLength(1);
  expect(runs[0]!.pid).not.toBe(process.pid);
  expect(runs[0]!.packed).toBeGreaterThan(PACK_GROUP / 2);
  expect(runs[0]!.nice).toBe(19);
  expect(packingPending(sb.dataDir)).toBe(false);
  // LINEAGE_BLOB_PACKING=0: the sync that completes group 1 asks for nothing, starts nothing.
  process.env.LINEAGE_BLOB_PACKING = '0';
  try {
    for (let seq = PACK_GROUP + 2; seq <= 2 * PACK_GROUP; seq++) await sync(seq);
  } finally {
    delete process.env.LINEAGE_BLOB_PACKING;
  }
  expect(packingPending(sb.dataDir)).toBe(false);
  expect(await packedBelow(2 * PACK_GROUP)).toBe(await packedBelow(PACK_GROUP));
  const ledger = openLedger(sb.dataDir);
  cleanups.unshift(async () => closeDatabase(ledger.db));
  const agentId = agentIdOf(await fsp.readFile(path.join(sb.workspace, '.alf-agent-id'), 'utf8'));
  for (const entry of listEntries({ ledger, agentId })) expect((await readEntryBytes({ ledger, entry })).byteLength).toBe(entry.size_bytes);
}, 240_000);

it('a local sync of a large change returns with its entry appended and its fold left to the detached `lineage index --catch-up` it starts, which folds it with no reader: the index of syncs indexed inline', async () => {
  // Two workspaces of one agent with the same files: one synced as a user's `lineage sync` is, the other indexed inline.
  const background = await makeSandbox();
  const inline = await makeSandbox();
  cleanups.push(background.cleanup, inline.cleanup);
  const twins = [
    { sb: background, target: localTarget(background.dataDir, steppingClock()) },
    { sb: inline, target: localTarget(inline.dataDir, steppingClock(), { indexing: 'inline' }) },
  ];
  for (const { sb } of twins) await sb.write('.alf-agent-id', '5f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f\n');
  // 300 sections, every one changed by each sync: entries of 300 records or lines, over BACKGROUND_INDEX_FROM.
  const memory = (edit: number) => `# Memory\n\n${Array.from({ length: 300 }, (_, i) => `## Fact ${i}\nFact ${i} holds value ${edit}.\n`).join('\n')}`;
  /** The data directory's pending entries, read beside the sync (a reader of its own would fold them). */
  const pending = (dataDir: string) => {
    const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
    try {
      return (db.prepare('SELECT seq FROM index_pending').all() as { seq: number }[]).map((r) => r.seq);
    } finally {
      db.close();
    }
  };
  for (const edit of [0, 1, 2]) {
    for (const { sb, target } of twins) {
      await sb.write('MEMORY.md', memory(edit));
      // The same bytes in both uploads: a raw file's zip entry carries its mtime.
      const at = new Date(Date.parse('2026-11-01T09:00:00Z') + edit * 3600_000);
      fs.utimesSync(path.join(sb.workspace, 'MEMORY.md'), at, at);
      const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() });
      expect(out.sequence).toBe(edit);
    }
    expect(pending(inline.dataDir)).toEqual([]);
    // Pending until the background process folds it (it may already have).
    expect([[], [edit]]).toContainEqual(pending(background.dataDir));
    for (const deadline = Date.now() + 60_000; pending(background.dataDir).length > 0;) {
      if (Date.now() > deadline) throw new Error('the background catch-up did not fold the entry within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const ledgers = twins.map(({ sb }) => openLedger(sb.dataDir));
  cleanups.unshift(async () => ledgers.forEach((l) => closeDatabase(l.db)));
  const [folded, indexed] = ledgers.map((l) => dumpIndex(l));
  expect(folded!.ledger_entries).toHaveLength(3);
  expect((folded!.ledger_entries as { updates: number }[]).map((e) => e.updates)).toEqual([0, 300, 300]);
  expect(folded).toEqual(indexed);
}, 120_000);
