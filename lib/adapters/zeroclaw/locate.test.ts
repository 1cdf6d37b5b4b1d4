/**
 * `findBrainDb`'s shallow search (no database at data/memory/brain.db, memory/brain.db or memory.db):
 * it follows a directory link only inside the workspace and never into a loop, so it lists nothing
 * outside the workspace and finds a database under its own path. Before, it went through `archive ->
 * /elsewhere` (and `up -> ..`, three levels of the machine) and found the database there, which the
 * sync then refused as outside, and through `a -> .` it found `a/stores/brain.db` for `stores/brain.db`.
 * Real directories and links.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBrainDb, searchWarnings } from './locate';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A sandbox: `ws` (the workspace) and `outside`, each built from `files` (a path → '' for a file, a link target for a link). */
function sandbox(ws: Record<string, string>, outside: Record<string, string> = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-locate-')));
  roots.push(root);
  for (const [dir, files] of [['ws', ws], ['outside', outside]] as const) {
    fs.mkdirSync(path.join(root, dir));
    for (const [rel, to] of Object.entries(files)) {
      const abs = path.join(root, dir, ...rel.split('/'));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      if (to === '') fs.writeFileSync(abs, '');
      else fs.symlinkSync(to.replace('$OUT', path.join(root, 'outside')), abs);
    }
  }
  return { ws: path.join(root, 'ws'), outside: path.join(root, 'outside'), root };
}

describe('the shallow search', () => {
  it('does not enter a directory link out of the workspace: the workspace\'s own database is found, the link noted', async () => {
    const { ws, outside } = sandbox({ 'archive': '$OUT/other', 'stores/brain.db': '' }, { 'other/brain.db': '' });
    const notFollowed = new Map<string, string>();
    expect(await findBrainDb(ws, notFollowed)).toBe('stores/brain.db');
    expect(notFollowed).toEqual(new Map([['archive', path.join(outside, 'other')]]));
  });

  it('does not climb out through `up -> ..`, nor find a database behind a link out alone', async () => {
    const { ws, root } = sandbox({ 'up': '..', 'archive': '$OUT/other' }, { 'other/brain.db': '' });
    const notFollowed = new Map<string, string>();
    expect(await findBrainDb(ws, notFollowed)).toBeNull();
    expect(notFollowed).toEqual(new Map([['archive', path.join(root, 'outside', 'other')], ['up', root]]));
  });

  it('a directory link to nothing is passed by and noted', async () => {
    const { ws } = sandbox({ 'gone': '/nonexistent-lineage-dir', 'stores/brain.db': '' });
    const notFollowed = new Map<string, string>();
    expect(await findBrainDb(ws, notFollowed)).toBe('stores/brain.db');
    expect(notFollowed).toEqual(new Map([['gone', '/nonexistent-lineage-dir']]));
  });

  it('enters a directory link inside the workspace, but not one back to its own directory or above (a loop)', async () => {
    expect(await findBrainDb(sandbox({ 'a': '.', 'stores/brain.db': '' }).ws)).toBe('stores/brain.db');
    expect(await findBrainDb(sandbox({ 'a': 'sub', 'sub/b': '..', 'z/brain.db': '' }).ws)).toBe('z/brain.db');
    expect(await findBrainDb(sandbox({ 'a': 'stores/inner', 'stores/inner/brain.db': '' }).ws)).toBe('a/brain.db');
  });

  it('reads no deeper than three levels', async () => {
    expect(await findBrainDb(sandbox({ 'a/b/brain.db': '' }).ws)).toBe('a/b/brain.db');
    expect(await findBrainDb(sandbox({ 'a/b/c/brain.db': '' }).ws)).toBeNull();
  });
});

describe('searchWarnings', () => {
  it('says the links passed by beside a database the search found, never beside a fixed candidate', () => {
    const links = new Map([['archive', '/elsewhere/other']]);
    expect(searchWarnings('stores/brain.db', links)).toHaveLength(1);
    expect(searchWarnings('memory/brain.db', links)).toEqual([]);
    expect(searchWarnings('stores/brain.db', new Map())).toEqual([]);
  });
});
