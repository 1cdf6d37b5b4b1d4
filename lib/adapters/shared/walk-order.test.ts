/**
 * A directory reached under two names (as itself and through a symlink, or through two symlinks)
 * is walked once, under a name that does not depend on the order the filesystem lists entries in:
 * its own path when the walk holds it, else the smallest name. Node's `readdir` sorts on Unix
 * (libuv does) but not on Windows, where the order is the filesystem's; so each tree is walked
 * with its real listings presented in every rotation and reversed, and made twice on tmpfs, whose
 * own listing order (`opendir`'s, unsorted) is the reverse of the order entries were made in.
 */
import { existsSync, type Dirent } from 'node:fs';
import { mkdir, mkdtemp, opendir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesAdapter } from '../hermes/index';
import { openclawAdapter } from '../openclaw/index';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb } from '../zeroclaw/test-support';
import { DirHeap, walkFiles, walkFilesListed, type DirLister } from './walk';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const TMPFS = '/dev/shm';
const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** One entry of a tree: a directory, a file with its text, or a symlink with its target. */
type Item = ['dir', string] | ['file', string, string] | ['link', string, string];

/**
 * The tree made with the entries of each directory in the order given, and again in reverse:
 * two workspaces with the same files whose directories list in opposite orders.
 */
async function bothOrders(items: Item[]): Promise<[string, string]> {
  const make = async (order: Item[]) => {
    const ws = await mkdtemp(path.join(TMPFS, 'lineage-walkorder-'));
    made.push(ws);
    await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
    // Parents first (a directory before what it holds), siblings in the order given.
    const depth = (item: Item) => item[1].split('/').length;
    for (const item of [...order].sort((a, b) => depth(a) - depth(b))) {
      const at = path.join(ws, ...item[1].split('/'));
      if (item[0] === 'dir') await mkdir(at);
      else if (item[0] === 'file') await writeFile(at, item[2]);
      else await symlink(item[2], at);
    }
    return ws;
  };
  return [await make(items), await make([...items].reverse())];
}

/** The filesystem's own listing order: `opendir`, which does not sort. */
const rawOrder: DirLister = async (abs) => {
  const entries: Dirent[] = [];
  for await (const entry of await opendir(abs)) entries.push(entry);
  return entries;
};

/** The names of `dir`'s entries in the order the filesystem lists them. */
const listing = async (ws: string, dir: string) => (await rawOrder(path.join(ws, ...dir.split('/')))).map((entry) => entry.name);

/** Listers that hand each directory's real entries rotated by each amount, and each of those reversed. */
function permutedListers(): DirLister[] {
  const listers: DirLister[] = [];
  for (let shift = 0; shift < 6; shift++) {
    for (const reverse of [false, true]) {
      listers.push(async (abs) => {
        const entries = await readdir(abs, { withFileTypes: true });
        const k = shift % Math.max(entries.length, 1);
        const rotated = [...entries.slice(k), ...entries.slice(0, k)];
        return reverse ? rotated.reverse() : rotated;
      });
    }
  }
  return [...listers, rawOrder];
}

/** `walkFiles` of `ws` under every listing order: each result (and in `skipped`, what each skipped). */
async function everyOrder(ws: string, dirs: string | string[], skipped?: string[][]): Promise<string[][]> {
  const results: string[][] = [];
  for (const list of permutedListers()) {
    const skip: string[] = [];
    results.push(await walkFilesListed(list, ws, dirs, skip));
    skipped?.push(skip.sort());
  }
  return results;
}

describe.skipIf(!existsSync(TMPFS))('walkFiles: the name a directory reached twice is walked under', () => {
  it('a directory and a link to it: the directory\'s own path, whichever is listed first', async () => {
    const [one, two] = await bothOrders([
      ['dir', 'memory'],
      ['link', 'memory/a', 'b'],
      ['dir', 'memory/b'],
      ['file', 'memory/b/x.md', 'x\n'],
    ]);
    expect(await listing(one, 'memory')).toEqual((await listing(two, 'memory')).reverse());
    for (const ws of [one, two]) {
      const skipped: string[][] = [];
      for (const files of await everyOrder(ws, 'memory', skipped)) expect(files).toEqual(['memory/b/x.md']);
      for (const skip of skipped) expect(skip).toEqual([]);
      expect(await walkFiles(ws, 'memory')).toEqual(['memory/b/x.md']);
    }
  });

  it('two links to a directory outside the walk: the smaller name, whichever is listed first', async () => {
    const [one, two] = await bothOrders([
      ['dir', 'shared'],
      ['file', 'shared/s.md', 's\n'],
      ['dir', 'shared/deep'],
      ['file', 'shared/deep/d.md', 'd\n'],
      ['dir', 'memory'],
      ['link', 'memory/zz', '../shared'],
      ['link', 'memory/mm', '../shared'],
      ['link', 'memory/aa', '../shared/deep'],
    ]);
    expect(await listing(one, 'memory')).toEqual((await listing(two, 'memory')).reverse());
    for (const ws of [one, two]) {
      // shared/deep is reached as memory/aa and as memory/mm/deep: memory/aa is the smaller.
      for (const files of await everyOrder(ws, 'memory')) expect(files).toEqual(['memory/aa/d.md', 'memory/mm/s.md']);
    }
  });

  it('a link from one walked directory to another: carried once, under its own path', async () => {
    const [one, two] = await bothOrders([
      ['dir', 'cron'],
      ['file', 'cron/jobs.json', '{}\n'],
      ['dir', 'memories'],
      ['link', 'memories/cron', '../cron'],
      ['file', 'memories/MEMORY.md', 'm\n'],
    ]);
    for (const ws of [one, two]) {
      for (const files of await everyOrder(ws, ['memories', 'cron'])) expect(files).toEqual(['cron/jobs.json', 'memories/MEMORY.md']);
      expect(await walkFiles(ws, ['cron', 'memories'])).toEqual(['cron/jobs.json', 'memories/MEMORY.md']);
    }
  });

  it('a loop is said the same whatever the order: a link up is a loop under any name', async () => {
    const [one, two] = await bothOrders([
      ['dir', 'memory'],
      ['dir', 'memory/real'],
      ['file', 'memory/real/r.md', 'r\n'],
      ['link', 'memory/real/up', '..'],
      ['link', 'memory/alias', 'real'],
    ]);
    for (const ws of [one, two]) {
      const skipped: string[][] = [];
      for (const files of await everyOrder(ws, 'memory', skipped)) expect(files).toEqual(['memory/real/r.md']);
      for (const skip of skipped) expect(skip).toEqual(['memory/real/up']);
    }
  });

  it('each runtime\'s export carries a directory under its own path, not a link\'s, and a shared one under the smaller link', async () => {
    const tree = (dir: string): Item[] => [
      ['file', 'SOUL.md', '# Soul\n'],
      ['dir', 'notes'],
      ['file', 'notes/n.md', '## N\nnote\n'],
      ['dir', dir],
      ['link', `${dir}/b-link`, 'c-real'],
      ['dir', `${dir}/c-real`],
      ['file', `${dir}/c-real/r.md`, '## R\nreal\n'],
      ['link', `${dir}/a-link`, 'c-real'],
      ['link', `${dir}/y-notes`, '../notes'],
      ['link', `${dir}/x-notes`, '../notes'],
    ];
    for (const [runtime, dir] of [['openclaw', 'memory'], ['hermes', 'memories'], ['zeroclaw', 'memory']] as const) {
      const [one, two] = await bothOrders(tree(dir));
      const raws: string[][] = [];
      for (const ws of [one, two]) {
        if (runtime === 'zeroclaw') await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
        const adapter = runtime === 'openclaw' ? openclawAdapter : runtime === 'hermes' ? hermesAdapter : zeroclawAdapter;
        const result = await adapter.exportWorkspace({ workspace: ws, runtimeAgent: runtime === 'zeroclaw' ? 'alpha' : undefined, persistAgentId: false, clock: fixedClock });
        raws.push([...result.raw.keys()].filter((rel) => rel.startsWith(`${dir}/`)).sort());
      }
      expect(raws[0], runtime).toEqual([`${dir}/c-real/r.md`, `${dir}/x-notes/n.md`]);
      expect(raws[1], runtime).toEqual(raws[0]);
    }
  });
});

describe('Hermes walks its three directories as one', () => {
  it('a link from memories/ to cron/ carries cron\'s files once, under cron/', async () => {
    const home = await mkdtemp(path.join(existsSync(TMPFS) ? TMPFS : '/tmp', 'lineage-walkorder-'));
    made.push(home);
    await mkdir(path.join(home, 'memories'));
    await mkdir(path.join(home, 'cron'));
    await writeFile(path.join(home, 'cron', 'jobs.json'), '{}\n');
    await writeFile(path.join(home, 'memories', 'MEMORY.md'), 'm\n');
    await symlink('../cron', path.join(home, 'memories', 'jobs'));
    const result = await hermesAdapter.exportWorkspace({ workspace: home, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].sort()).toEqual(['cron/jobs.json', 'memories/MEMORY.md']);
    expect(result.warnings.filter((w) => w.includes('symbolic link'))).toEqual([]);
  });
});

describe('DirHeap: the order directories are walked in depends on their names only', () => {
  const dir = (rel: string, own: boolean) => ({ rel, real: `/r/${rel}`, chain: [], own });
  it('own paths first, then by code unit, whatever order they were found in', () => {
    const items = [dir('memory/b', false), dir('memory/a-x', false), dir('memory/a/sub', false), dir('memory/z', true), dir('memory/Z', false), dir('memory/é', false), dir('memory/c', true)];
    const expected = ['memory/c', 'memory/z', 'memory/Z', 'memory/a-x', 'memory/a/sub', 'memory/b', 'memory/é'];
    // Every rotation and its reverse: the same order out.
    for (let shift = 0; shift < items.length; shift++) {
      for (const order of [[...items.slice(shift), ...items.slice(0, shift)], [...items.slice(shift), ...items.slice(0, shift)].reverse()]) {
        const heap = new DirHeap();
        for (const item of order) heap.push(item);
        const out: string[] = [];
        for (let next = heap.pop(); next !== undefined; next = heap.pop()) out.push(next.rel);
        expect(out).toEqual(expected);
        expect(heap.size).toBe(0);
      }
    }
  });
});
