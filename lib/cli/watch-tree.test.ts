import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchTree, type TreeWatch } from './watch-tree';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.restoreAllMocks();
});

/**
 * A watch of `root` that records what it says of the root (`gone`, `back`, failures) in `said` and the
 * paths it reports in `seen`; `until` waits for a test of them. Removes `parent` after the test.
 */
function watchedRoot(root: string, parent: string) {
  const said: string[] = [];
  const seen = new Set<string | null>();
  const waiters: (() => void)[] = [];
  const poke = () => waiters.forEach((w) => w());
  const watch = watchTree(root, (rel) => (seen.add(rel), poke()), (error) => said.push(`failed: ${error.message}`), {
    gone: () => (said.push('gone'), poke()),
    back: () => (said.push('back'), poke()),
  });
  cleanups.push(() => {
    watch.close();
    fs.rmSync(parent, { recursive: true, force: true });
  });
  const until = (test: () => boolean) => new Promise<void>((resolve) => {
    const check = () => test() && resolve();
    waiters.push(check);
    check();
  });
  return { said, seen, until };
}

/** A tree and a watch of it; `seen` collects the paths reported. */
function watched(setup: (root: string) => void = () => {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-watch-tree-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-watch-outside-'));
  setup(root);
  const seen = new Set<string | null>();
  const errors: { error: Error; rel: string }[] = [];
  const waiters: (() => void)[] = [];
  const watch: TreeWatch = watchTree(root, (rel) => {
    seen.add(rel);
    for (const w of waiters) w();
  }, (error, rel) => errors.push({ error, rel }));
  cleanups.push(() => {
    watch.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  const write = (rel: string, text = 'x') => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  /** Resolves once `rel` was reported. */
  const reported = (rel: string) => new Promise<void>((resolve) => {
    const check = () => {
      if (seen.has(rel)) resolve();
    };
    waiters.push(check);
    check();
  });
  return { root, outside, seen, errors, watch, write, reported };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchTree (one watch per directory)', () => {
  it('reports files changed at any depth by their path from the root, in directories that were there and ones that came later', async () => {
    const t = watched((root) => {
      fs.mkdirSync(path.join(root, 'memory', 'semantic'), { recursive: true });
      fs.writeFileSync(path.join(root, 'memory', 'semantic', 'infra.md'), 'a');
    });
    t.write('MEMORY.md');
    await t.reported('MEMORY.md');
    t.write('memory/semantic/infra.md', 'b');
    await t.reported('memory/semantic/infra.md');
    // A directory made after the watch started, with a file written into it at once (before its
    // own watch could be set): the file is reported all the same, and later changes in it too.
    t.write('memory/procedural/deep/steps.md');
    await t.reported('memory/procedural/deep/steps.md');
    t.seen.clear();
    t.write('memory/procedural/deep/steps.md', 'again');
    await t.reported('memory/procedural/deep/steps.md');
    expect(t.errors).toEqual([]);
  });

  it('follows no link out of the tree; a directory removed drops its watch; nothing is reported once closed', async () => {
    const t = watched();
    fs.symlinkSync(t.outside, path.join(t.root, 'away'));
    await t.reported('away');
    fs.writeFileSync(path.join(t.outside, 'secret.md'), 'x');
    t.write('memory/kept.md');
    await t.reported('memory/kept.md');
    fs.rmSync(path.join(t.root, 'memory'), { recursive: true });
    await t.reported('memory');
    t.write('memory/again.md');
    await t.reported('memory/again.md');
    // Writes outside by the link are never ours (one more write inside shows the events are flowing).
    t.write('last.md');
    await t.reported('last.md');
    expect([...t.seen].filter((rel) => rel?.startsWith('away/'))).toEqual([]);
    expect(t.errors).toEqual([]);
    t.watch.close();
    t.seen.clear();
    t.write('after-close.md');
    await pause(300);
    expect(t.seen.size).toBe(0);
  });

  it('a directory that cannot be watched is reported by its path, and the rest of the tree is still watched', async () => {
    // The system refusing one more inotify watch (ENOSPC: a large Hermes home past
    // max_user_watches) is what this stands for; the refusal is the system's, so it is made here.
    const watch = fs.watch;
    vi.spyOn(fs, 'watch').mockImplementation(((dir: string, ...rest: unknown[]) => {
      if (path.basename(dir) === 'crowded') throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${dir}'`), { code: 'ENOSPC' });
      return (watch as (...args: unknown[]) => fs.FSWatcher)(dir, ...rest);
    }) as typeof fs.watch);
    const t = watched((root) => fs.mkdirSync(path.join(root, 'memory')));
    t.write('memory/crowded/a.md');
    await t.reported('memory/crowded');
    expect(t.errors.map((e) => [e.rel, (e.error as NodeJS.ErrnoException).code])).toEqual([['memory/crowded', 'ENOSPC']]);
    t.write('memory/still.md');
    await t.reported('memory/still.md');
    t.write('top.md');
    await t.reported('top.md');
  });
  it('the root removed, or moved away, is said gone; a directory made again under its name is watched anew, its files reported', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-watch-parent-'));
    const root = path.join(parent, 'workspace');
    fs.mkdirSync(path.join(root, 'memory'), { recursive: true });
    const { said, seen, until } = watchedRoot(root, parent);
    fs.rmSync(root, { recursive: true });
    await until(() => said.includes('gone'));
    // Made again, a file at once (before its watch could be set) and one later: both reported.
    fs.mkdirSync(path.join(root, 'memory'), { recursive: true });
    fs.writeFileSync(path.join(root, 'memory', 'early.md'), 'x');
    await until(() => said.includes('back') && seen.has('memory/early.md'));
    fs.writeFileSync(path.join(root, 'MEMORY.md'), 'x');
    await until(() => seen.has('MEMORY.md'));
    // Moved away, another directory put in its place: the moved one is no longer watched, the new one is.
    fs.renameSync(root, path.join(parent, 'moved'));
    await until(() => said.filter((s) => s === 'gone').length === 2);
    fs.mkdirSync(root);
    await until(() => said.filter((s) => s === 'back').length === 2);
    seen.clear();
    fs.writeFileSync(path.join(parent, 'moved', 'old.md'), 'x');
    fs.writeFileSync(path.join(root, 'new.md'), 'x');
    await until(() => seen.has('new.md'));
    await pause(300);
    expect([...seen]).toEqual(['new.md']);
    expect(said).toEqual(['gone', 'back', 'gone', 'back']);
  });
  it('a root that is a link to a directory: watched through it, and a link made again to another directory is watched anew', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-watch-parent-'));
    fs.mkdirSync(path.join(parent, 'one'));
    fs.mkdirSync(path.join(parent, 'two'));
    const root = path.join(parent, 'workspace');
    fs.symlinkSync(path.join(parent, 'one'), root);
    const { said, seen, until } = watchedRoot(root, parent);
    fs.writeFileSync(path.join(root, 'MEMORY.md'), 'x');
    await until(() => seen.has('MEMORY.md'));
    // The link replaced by one to another directory (as `ln -sfn` does: a new link renamed over it).
    fs.symlinkSync(path.join(parent, 'two'), `${root}.new`);
    fs.renameSync(`${root}.new`, root);
    await until(() => said.includes('back'));
    seen.clear();
    fs.writeFileSync(path.join(parent, 'one', 'old.md'), 'x');
    fs.writeFileSync(path.join(parent, 'two', 'new.md'), 'x');
    await until(() => seen.has('new.md'));
    await pause(300);
    expect([...seen]).toEqual(['new.md']);
    expect(said).toEqual(['back']);
  });
});
