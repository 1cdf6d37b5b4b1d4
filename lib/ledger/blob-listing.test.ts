import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { FsBlobStore, PACK_GROUP } from './blob-store';

/**
 * The listings a serving process runs every ten minutes over every blob of its data directory (the
 * orphan sweep's `list`, the packer's `wholeToPackKeys`): what it finds is the packing rule's, and a
 * long listing gives the event loop turns while it works through the names, so a request being
 * served is not held up behind tens of thousands of them.
 */

const roots: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function blobRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-listing-'));
  roots.push(root);
  return root;
}

const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const keyOf = (a: number, seq: number, kind: 'alf' | 'alf-delta' = seq === 0 ? 'alf' : 'alf-delta') => `${agent(a)}/${seq}-${(a * 7919 + seq).toString(16).padStart(16, '0')}.${kind}`;
const fileOf = (key: string, packed: boolean) => `${key.split('/').join('~')}${packed ? '.packed' : ''}`;

/** How many blobs `wholeToPackKeys` must find, from the rule itself: a blob stored whole with an earlier sequence in its group (complete groups only, when asked). */
function expectedCount(files: { key: string; packed: boolean }[], completeOnly: boolean): number {
  const seqOf = (key: string) => Number(/\/(\d+)-/.exec(key)![1]);
  const dirOf = (key: string) => key.slice(0, key.indexOf('/') + 1);
  const lastGroup = new Map<string, number>();
  for (const { key } of files) lastGroup.set(dirOf(key), Math.max(lastGroup.get(dirOf(key)) ?? -1, Math.floor(seqOf(key) / PACK_GROUP)));
  const first = new Map<string, number>();
  for (const { key } of files) {
    const id = `${dirOf(key)}|${Math.floor(seqOf(key) / PACK_GROUP)}`;
    first.set(id, Math.min(first.get(id) ?? Infinity, seqOf(key)));
  }
  const whole = new Set(files.filter((f) => !f.packed).map((f) => f.key));
  return [...whole].filter((key) => {
    const group = Math.floor(seqOf(key) / PACK_GROUP);
    if (completeOnly && group >= lastGroup.get(dirOf(key))!) return false;
    return seqOf(key) > first.get(`${dirOf(key)}|${group}`)!;
  }).length;
}

it('wholeToPackKeys finds, by the packing rule, the blobs stored whole that a pass would pack: not a group\'s first, only complete groups when asked, a blob in both forms once', async () => {
  const root = blobRoot();
  const files: { key: string; packed: boolean }[] = [];
  let rand = 20261204;
  const next = () => ((rand = (rand * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let a = 0; a < 5; a++) {
    const syncs = 1 + Math.floor(next() * 3.5 * PACK_GROUP);
    for (let seq = 0; seq < syncs; seq++) {
      if (next() < 0.1) continue; // a gap
      const key = keyOf(a, seq);
      const form = next();
      // whole, packed, or both on disk (a pass a kill interrupted)
      if (form < 0.6 || form >= 0.9) files.push({ key, packed: false });
      if (form >= 0.6) files.push({ key, packed: true });
      if (next() < 0.03) files.push({ key: keyOf(a, seq, 'alf'), packed: false }); // a rollover snapshot at the delta's sequence
    }
  }
  for (const { key, packed } of files) fs.writeFileSync(path.join(root, fileOf(key, packed)), '');
  const store = new FsBlobStore(root, { pack: 'deferred' });
  for (const completeOnly of [true, false]) {
    const expected = expectedCount(files, completeOnly);
    expect(expected).toBeGreaterThan(0);
    expect((await store.wholeToPackKeys({ completeOnly })).length).toBe(expected);
  }
  expect((await store.wholeToPackKeys({ prefix: `${agent(2)}/` })).length).toBe(expectedCount(files.filter((f) => f.key.startsWith(`${agent(2)}/`)), false));
});

it('list and wholeToPackKeys give the event loop turns while they go through tens of thousands of names', async () => {
  const root = blobRoot();
  for (let a = 0; a < 3; a++) for (let seq = 0; seq < 2_000; seq++) fs.writeFileSync(path.join(root, fileOf(keyOf(a, seq), false)), '');
  const store = new FsBlobStore(root, { pack: 'deferred' });
  const readdir = fsp.readdir;
  for (const listing of [() => store.list(), () => store.wholeToPackKeys({ completeOnly: true })]) {
    // Queued the moment the names are read: it runs before the listing ends only if the listing
    // hands the event loop a turn while it works through them.
    let turned = false;
    vi.spyOn(fsp, 'readdir').mockImplementationOnce(async (...args: Parameters<typeof readdir>) => {
      const names = await (readdir as (...a: Parameters<typeof readdir>) => Promise<unknown>)(...args);
      setImmediate(() => { turned = true; });
      return names as never;
    });
    await listing();
    expect(turned).toBe(true);
  }
});
