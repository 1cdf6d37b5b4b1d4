import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FsBlobStore, PACK_GROUP } from './blob-store';
import { crashBlobAt, crashKey } from './packed-crash-data';
import { removeDeadAnnouncements } from './pack-intents';

const BLOBS = 3 * PACK_GROUP;

/** Runs the packer over `root` and SIGKILLs it at a random moment after it is loaded; true when it finished first. */
async function packAndKill(root: string): Promise<boolean> {
  const child = fork(path.join(__dirname, 'deferred-pack-child.ts'), [], {
    execArgv: ['--import', 'tsx'], env: { ...process.env, PACK_ROOT: root }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', () => setTimeout(() => child.kill('SIGKILL'), Math.random() * 120));
  return new Promise<boolean>((resolve, reject) => {
    child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(false) : code === 0 ? resolve(true) : reject(new Error(`packer exited ${code}`))));
  });
}

async function expectEveryBlobExact(root: string): Promise<void> {
  const store = new FsBlobStore(root);
  expect(await store.list()).toEqual(Array.from({ length: BLOBS }, (_, seq) => crashKey(seq)).sort());
  for (let seq = 0; seq < BLOBS; seq++) {
    expect(Buffer.from(await store.get(crashKey(seq))).equals(Buffer.from(crashBlobAt(seq))), `seq ${seq}`).toBe(true);
  }
}

it('deferred packing killed at random moments (SIGKILL) loses no blob: each reads byte-exact after every kill, and a later run finishes the packing as packing at put would have', async () => {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-pack-')), 'blobs');
  const writer = new FsBlobStore(root, { pack: 'deferred' });
  for (let seq = 0; seq < BLOBS; seq++) await writer.put(crashKey(seq), crashBlobAt(seq));
  expect(fs.readdirSync(root).filter((n) => n.endsWith('.packed'))).toEqual([]);
  let kills = 0;
  for (let round = 0; round < 12; round++) {
    if (await packAndKill(root)) break;
    kills++;
    await expectEveryBlobExact(root);
  }
  expect(kills).toBeGreaterThan(0);
  // A kill during a write leaves at most its temp file (what the orphan sweep removes), and a kill
  // in a step its announcement (what the next packer removes).
  for (const name of fs.readdirSync(root)) if (name.includes('.tmp-')) fs.rmSync(path.join(root, name));
  removeDeadAnnouncements(root);
  await new FsBlobStore(root, { pack: 'deferred' }).packStored();
  await expectEveryBlobExact(root);
  // Now the directory is what packing at put leaves (the same files, byte for byte), nothing else.
  const eager = path.join(path.dirname(root), 'eager');
  const atPut = new FsBlobStore(eager);
  for (let seq = 0; seq < BLOBS; seq++) await atPut.put(crashKey(seq), crashBlobAt(seq));
  const names = fs.readdirSync(root).sort();
  expect(names).toEqual(fs.readdirSync(eager).sort());
  expect(names.filter((n) => n.endsWith('.packed')).length).toBeGreaterThan(BLOBS - 10);
  for (const name of names) expect(fs.readFileSync(path.join(root, name)).equals(fs.readFileSync(path.join(eager, name))), name).toBe(true);
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
}, 300_000);

it('a blob keeps its file time through packing and through being rewritten whole (recovery dates a lost commit by it)', async () => {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-pack-times-')), 'blobs');
  const store = new FsBlobStore(root, { pack: 'deferred' });
  const stored = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, seq));
  for (let seq = 0; seq <= PACK_GROUP; seq++) {
    await store.put(crashKey(seq), crashBlobAt(seq));
    fs.utimesSync(store.pathOf(crashKey(seq)), stored(seq), stored(seq));
  }
  expect((await store.packStored({ completeOnly: true })).packed).toBeGreaterThan(PACK_GROUP / 2);
  const timeOf = (seq: number) => fs.statSync(store.fileOf(crashKey(seq))!).mtime.getTime();
  const packedSeqs = Array.from({ length: PACK_GROUP }, (_, seq) => seq).filter((seq) => store.fileOf(crashKey(seq))!.endsWith('.packed'));
  expect(packedSeqs.length).toBeGreaterThan(PACK_GROUP / 2);
  for (let seq = 0; seq <= PACK_GROUP; seq++) expect(timeOf(seq), `seq ${seq}`).toBe(stored(seq).getTime());
  // Deleting a base rewrites its packed dependants whole: from their packed files, with their times.
  const base = packedSeqs[0]! - 1;
  await store.delete(crashKey(base));
  for (let seq = 0; seq <= PACK_GROUP; seq++) if (seq !== base) expect(timeOf(seq), `seq ${seq}`).toBe(stored(seq).getTime());
  expect(store.fileOf(crashKey(base + 1))).not.toMatch(/\.packed$/);
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});
