import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The commit floor (bench/measure/commit-floor.mjs) must do git's work and no less: else the floor
// the bench reports would be lower than what a commit costs.
const SCRIPT = path.join(__dirname, 'commit-floor.mjs');
const PAST = new Date('2026-06-01T00:00:00Z');

let root: string;
let workspace: string;
let store: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'commit-floor-'));
  workspace = path.join(root, 'ws');
  store = path.join(root, 'store');
  fs.mkdirSync(path.join(workspace, 'memory'), { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string, mtime: Date = PAST): void {
  const file = path.join(workspace, rel);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, mtime, mtime);
}

function commit(...options: string[]): { read: number; written: number } {
  const out = execFileSync(process.execPath, [SCRIPT, workspace, store, ...options], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as { read: number; written: number };
}

/** The object a blob of `text` is stored as, inflated: git's `blob <size>\0<bytes>`. */
function storedBlob(text: string): string | null {
  const index = JSON.parse(fs.readFileSync(path.join(store, 'index.json'), 'utf8')) as Record<string, { oid: string }>;
  const entry = Object.entries(index).find(([, e]) => {
    const file = path.join(store, 'objects', e.oid.slice(0, 2), e.oid.slice(2));
    return zlib.inflateSync(fs.readFileSync(file)).toString('latin1') === `blob ${Buffer.byteLength(text)}\0${text}`;
  });
  return entry?.[1].oid ?? null;
}

describe('the commit floor', () => {
  it('reads only the files whose stat data changed, and writes only their new objects', () => {
    write('MEMORY.md', '# a\n');
    write('memory/one.md', '## one\nfirst\n');
    write('memory/two.md', '## two\nsecond\n');
    write('.alf-agent-id', 'x');
    // Three blobs, two trees, one commit; the agent id file is left out, as git's exclude does.
    expect(commit()).toEqual({ read: 3, written: 6 });
    // Nothing changed: nothing read; only a new commit object (its time and parent differ).
    expect(commit()).toEqual({ read: 0, written: 1 });
    write('memory/two.md', '## two\nsecond, edited\n');
    // One blob, the memory tree, the root tree, the commit.
    expect(commit()).toEqual({ read: 1, written: 4 });
    expect(storedBlob('## two\nsecond, edited\n')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('with --pack, writes one file per commit, and reads what changed as without', () => {
    write('MEMORY.md', '# a\n');
    write('memory/one.md', '## one\nfirst\n');
    expect(commit('--pack')).toEqual({ read: 2, written: 5 });
    write('memory/one.md', '## one\nfirst, edited\n');
    expect(commit('--pack')).toEqual({ read: 1, written: 4 });
    const files = fs.readdirSync(path.join(store, 'objects'));
    expect(files).toHaveLength(2);
    expect(files.every((name) => /^[0-9a-f]{40}\.pack$/.test(name))).toBe(true);
  });

  it('hashes a blob as git does', () => {
    write('MEMORY.md', '# a\n');
    commit();
    // `git hash-object` of "# a\n".
    expect(storedBlob('# a\n')).toBe(execFileSync('git', ['hash-object', path.join(workspace, 'MEMORY.md')], { encoding: 'utf8' }).trim());
  });

  it('reads again a file modified no earlier than its index was written, its stat data unchanged (git\'s racy rule)', () => {
    write('memory/one.md', '## one\nfirst\n');
    write('memory/late.md', '## late\nsame second\n', new Date('2099-01-01T00:00:00Z'));
    expect(commit().read).toBe(2);
    // Nothing touched since: the file whose mtime is not before the index's is read again, the other not.
    expect(commit()).toEqual({ read: 1, written: 1 });
  });
});
