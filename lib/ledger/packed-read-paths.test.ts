import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { rebuildIndex } from '@/lib/history/rebuild';
import { getWorkspaceFile, getWorkspaceTree, workspaceAlfAt } from '@/lib/history/queries/workspace';
import { embeddedStorage } from '@/lib/storage/embedded';
import { FsBlobStore } from './blob-store';
import { readEntryBytes } from './entries';
import type { Ledger } from './ledger';

const AGENT = '3f2d1c0b-4444-4a2b-8c3d-000000000001';
const TURNS = 90;

/**
 * The same generated history (rollovers included) into a ledger that packs blobs, one that stores
 * them whole, as before packing, and one that defers packing (whole at ingest, `packStored` later).
 */
async function build(pack: boolean | 'deferred'): Promise<ReturnType<typeof tempLedger>> {
  const previous = process.env.LINEAGE_BLOB_PACKING;
  process.env.LINEAGE_BLOB_PACKING = pack ? '1' : '0';
  const t = tempLedger(pack === 'deferred' ? { packing: 'deferred' } : {});
  if (previous === undefined) delete process.env.LINEAGE_BLOB_PACKING;
  else process.env.LINEAGE_BLOB_PACKING = previous;
  const gen = new HistoryGenerator(t.ledger, AGENT, 17);
  gen.register();
  for (let i = 0; i < 5; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn < TURNS; turn++) {
    gen.randomMutations();
    if (turn % 11 === 0) gen.plantFact();
    await gen.sync(turn, { rollover: turn === 50 });
  }
  return t;
}

let packed: ReturnType<typeof tempLedger>;
let whole: ReturnType<typeof tempLedger>;
let deferred: ReturnType<typeof tempLedger>;
beforeAll(async () => {
  packed = await build(true);
  whole = await build(false);
  deferred = await build('deferred');
}, 180_000);
afterAll(() => {
  packed?.cleanup();
  whole?.cleanup();
  deferred?.cleanup();
});

const entriesOf = (ledger: Ledger) => ledger.db.sqlite.prepare('SELECT * FROM ledger_entries ORDER BY seq, kind').all() as
  { id: string; agent_id: string; seq: number; kind: 'delta' | 'snapshot'; blob_key: string; sha256: string }[];

it('the packed ledger holds most blobs packed, the other none', () => {
  const names = (t: typeof packed) => fs.readdirSync(path.join(t.dir, 'blobs'));
  expect(names(packed).filter((n) => n.endsWith('.packed')).length).toBeGreaterThan(TURNS / 2);
  expect(names(whole).filter((n) => n.endsWith('.packed'))).toEqual([]);
});

it('every entry reads back the bytes uploaded (what the restore download link and lineage restore serve: readEntryBytes)', async () => {
  const wholeEntries = entriesOf(whole.ledger);
  const entries = entriesOf(packed.ledger);
  expect(entries.map((e) => e.sha256)).toEqual(wholeEntries.map((e) => e.sha256));
  for (const [i, entry] of entries.entries()) {
    const bytes = await readEntryBytes({ ledger: packed.ledger, entry });
    expect(Buffer.from(bytes).equals(Buffer.from(await whole.ledger.blobs.get(wholeEntries[i]!.blob_key))), `seq ${entry.seq}`).toBe(true);
  }
});

it('the .alf workspace download and the workspace viewer give the same bytes as the whole-blob ledger at every sequence', async () => {
  for (let seq = 0; seq < TURNS; seq += 7) {
    const a = await workspaceAlfAt({ storage: embeddedStorage(packed.ledger), agentId: AGENT, seq });
    const b = await workspaceAlfAt({ storage: embeddedStorage(whole.ledger), agentId: AGENT, seq });
    expect(Buffer.from(a).equals(Buffer.from(b)), `seq ${seq}`).toBe(true);
    const tree = getWorkspaceTree({ db: packed.ledger.db, agentId: AGENT, seq });
    for (const file of (tree as { files: { path: string }[] }).files) {
      const x = getWorkspaceFile({ db: packed.ledger.db, agentId: AGENT, seq, path: file.path });
      const y = getWorkspaceFile({ db: whole.ledger.db, agentId: AGENT, seq, path: file.path });
      expect(Buffer.from(x!).equals(Buffer.from(y!)), `${file.path} at ${seq}`).toBe(true);
    }
  }
});

it('a rebuild over packed blobs (helper thread included) equals the incremental index and the whole-blob ledger\'s', async () => {
  const incremental = dumpIndex(packed.ledger);
  expect(incremental).toEqual(dumpIndex(whole.ledger));
  await rebuildIndex({ ledger: packed.ledger });
  expect(dumpIndex(packed.ledger)).toEqual(incremental);
  expect(packed.ledger.blobs).toBeInstanceOf(FsBlobStore);
});

it('deferred packing: every blob whole at ingest; packStored then writes, for the complete group, the very files packing at put wrote, and every read stays byte-exact', async () => {
  const blobDir = (t: typeof packed) => path.join(t.dir, 'blobs');
  const names = (t: typeof packed) => fs.readdirSync(blobDir(t)).sort();
  expect(names(deferred).filter((n) => n.endsWith('.packed'))).toEqual([]);
  const store = deferred.ledger.blobs as FsBlobStore;
  const readAll = async () => Promise.all(entriesOf(deferred.ledger).map(async (entry) => Buffer.from(await readEntryBytes({ ledger: deferred.ledger, entry }))));
  const before = await readAll();
  // Group 0 (sequences 0–63) is complete, group 1 (64–89) is not: only group 0 is packed.
  const result = await store.packStored({ completeOnly: true });
  expect(result.packed).toBeGreaterThan(40);
  const packedNames = names(deferred).filter((n) => n.endsWith('.packed'));
  expect(packedNames.length).toBe(result.packed);
  const seqOf = (name: string) => Number(/~(\d+)-/.exec(name)![1]);
  expect(packedNames.every((n) => seqOf(n) < 64)).toBe(true);
  for (const name of packedNames) {
    expect(fs.readFileSync(path.join(blobDir(deferred), name)).equals(fs.readFileSync(path.join(blobDir(packed), name))), name).toBe(true);
    expect(fs.existsSync(path.join(blobDir(deferred), name.slice(0, -'.packed'.length))), `${name}: whole form removed`).toBe(false);
  }
  const after = await readAll();
  expect(after.map((b, i) => b.equals(before[i]!))).toEqual(before.map(() => true));
  // The same bytes through a fresh store (no cache of what was just packed).
  const fresh = new FsBlobStore(blobDir(deferred));
  for (const [i, entry] of entriesOf(deferred.ledger).entries()) expect(Buffer.from(await fresh.get(entry.blob_key)).equals(after[i]!), entry.blob_key).toBe(true);
  // Again: nothing left to pack in complete groups; then every group, the open one too.
  expect((await store.packStored({ completeOnly: true })).packed).toBe(0);
  await store.packStored();
  expect(names(deferred)).toEqual(names(packed));
});

it('a rebuild over blobs packed later equals the incremental index', async () => {
  const incremental = dumpIndex(deferred.ledger);
  expect(incremental).toEqual(dumpIndex(whole.ledger));
  await rebuildIndex({ ledger: deferred.ledger });
  expect(dumpIndex(deferred.ledger)).toEqual(incremental);
});
