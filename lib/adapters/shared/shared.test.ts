import { mkdir, mkdtemp, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceAgentId } from '@/lib/core/ids';
import { readOrMintAgentId } from './agent-id';
import { globToRegExp } from './glob';
import { rawRelPath, toArchiveRaw, writeRawFiles } from './raw-write';
import { isNeverRaw, isRuntimeSidecar } from './sync-marker';
import { isFileInside, walkFiles } from './walk';

const tmp = () => mkdtemp(path.join(os.tmpdir(), 'adapters-shared-'));

describe('readOrMintAgentId', () => {
  it('reads and trims an existing id', async () => {
    const ws = await tmp();
    await writeFile(path.join(ws, '.alf-agent-id'), ' A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D\n');
    expect(await readOrMintAgentId({ workspace: ws, runtime: 'openclaw', persist: true })).toBe(
      'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    );
  });

  it('rejects a non-UUID id file with a clear error', async () => {
    const ws = await tmp();
    await writeFile(path.join(ws, '.alf-agent-id'), 'not-a-uuid');
    await expect(readOrMintAgentId({ workspace: ws, runtime: 'openclaw', persist: true })).rejects.toThrow(
      /must hold a UUID/,
    );
  });

  it('mints from the canonical path and persists without newline only when asked', async () => {
    const ws = await tmp();
    const expected = workspaceAgentId('zeroclaw', await realpath(ws));
    expect(await readOrMintAgentId({ workspace: ws, runtime: 'zeroclaw', persist: false })).toBe(expected);
    await expect(readFile(path.join(ws, '.alf-agent-id'))).rejects.toThrow();
    expect(await readOrMintAgentId({ workspace: ws, runtime: 'zeroclaw', persist: true })).toBe(expected);
    expect(await readFile(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(expected);
  });
});

describe('walkFiles', () => {
  it('returns sorted forward-slash paths and skips links leaving the root', async () => {
    const ws = await tmp();
    const outside = await tmp();
    await writeFile(path.join(outside, 'secret.md'), 'x');
    await mkdir(path.join(ws, 'memory', 'b'), { recursive: true });
    await writeFile(path.join(ws, 'memory', 'b', 'z.md'), 'z');
    await writeFile(path.join(ws, 'memory', 'a.md'), 'a');
    await writeFile(path.join(ws, 'memory', 'B.md'), 'B');
    await symlink(path.join(outside, 'secret.md'), path.join(ws, 'memory', 'leak.md'));
    await symlink(path.join(ws, 'memory', 'a.md'), path.join(ws, 'memory', 'inside.md'));
    expect(await walkFiles(ws, 'memory')).toEqual(['memory/B.md', 'memory/a.md', 'memory/b/z.md', 'memory/inside.md']);
    expect(await walkFiles(ws, 'missing')).toEqual([]);
    expect(await isFileInside(ws, 'memory/inside.md')).toBe(true);
    expect(await isFileInside(ws, 'memory/leak.md')).toBe(false);
    expect(await isFileInside(ws, 'memory')).toBe(false);
  });
});

describe('writeRawFiles', () => {
  it('writes bytes exactly, creating directories, and skips sidecars on request', async () => {
    const target = await tmp();
    const bin = new Uint8Array([0, 255, 13, 10, 1]);
    const written = await writeRawFiles({
      target,
      files: new Map([
        ['memory/x/bin.db', bin],
        ['.alf-brain-db-schema.json', new Uint8Array([123, 125])],
      ]),
      skipSidecars: true,
    });
    expect(written).toEqual(['memory/x/bin.db']);
    expect(new Uint8Array(await readFile(path.join(target, 'memory/x/bin.db')))).toEqual(bin);
  });

  it.each(['../evil', '/abs', 'a\\b', 'a/../b', 'nul\0', 'a//b', 'C:/x'])('rejects %j and writes nothing', async (bad) => {
    const target = await tmp();
    await expect(
      writeRawFiles({ target, files: new Map([['ok.md', new Uint8Array([1])], [bad, new Uint8Array([1])]]) }),
    ).rejects.toThrow(/unsafe workspace path/);
    await expect(readFile(path.join(target, 'ok.md'))).rejects.toThrow();
  });

  // Ingest refuses each of these in an archive, but a restore may meet them beside a path of its own
  // (the database it creates); met while renaming into place, each left part of the restore written.
  it.each([
    ['a file and a directory at once', ['memory/a.md', 'memory/a.md/b.md'], /"memory\/a\.md": a file, and the directory "memory\/a\.md\/b\.md" goes under/],
    ['the directory first', ['data/memory/brain.db', 'data'], /"data": a file, and the directory "data\/memory\/brain\.db" goes under/],
    ['one name under Unicode NFC', ['memory/\u00e9.md', 'memory/e\u0301.md'], /the same name under Unicode NFC/],
    ['a name of 256 bytes (128 characters)', [`memory/${'\u00e9'.repeat(128)}`], /a name of 256 bytes, longer than the 255/],
    ['a path longer than PATH_MAX', [`${Array.from({ length: 21 }, () => 'y'.repeat(200)).join('/')}/z`], /more than a path can hold here/],
  ])('rejects %s and writes nothing', async (_, bad, message) => {
    const target = await tmp();
    await expect(
      writeRawFiles({ target, files: new Map([['ok.md', new Uint8Array([1])], ...bad.map((rel) => [rel, new Uint8Array([1])] as const)]) }),
    ).rejects.toThrow(message);
    expect(await readdir(target)).toEqual([]);
  });
});

describe('raw paths and markers', () => {
  it('maps raw/<runtime>/<rel> both ways', () => {
    expect(rawRelPath('raw/openclaw/memory/a.md', 'openclaw')).toBe('memory/a.md');
    expect(rawRelPath('raw/hermes/memory/a.md', 'openclaw')).toBeNull();
    expect(rawRelPath('raw/openclaw/memory/', 'openclaw')).toBeNull();
    expect([...toArchiveRaw(new Map([['b', new Uint8Array()], ['a', new Uint8Array()]]), 'zeroclaw').keys()]).toEqual([
      'raw/zeroclaw/a',
      'raw/zeroclaw/b',
    ]);
  });

  it('never carries the agent id or the synced marker', () => {
    expect(isNeverRaw('.alf-synced.json')).toBe(true);
    expect(isNeverRaw('.alf-agent-id')).toBe(true);
    expect(isNeverRaw('MEMORY.md')).toBe(false);
    expect(isRuntimeSidecar('.alf-state-db-schema.json')).toBe(true);
    expect(isRuntimeSidecar('memory/.alf-x-schema.json')).toBe(true);
    expect(isRuntimeSidecar('.alf-include.json')).toBe(false);
  });

  it('globs are case-sensitive with segment-bound * and crossing **', () => {
    expect(globToRegExp('memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md').test('memory/2026-01-15.md')).toBe(true);
    expect(globToRegExp('memory/*.md').test('memory/a/b.md')).toBe(false);
    expect(globToRegExp('memory/**/*.md').test('memory/a/b.md')).toBe(true);
    expect(globToRegExp('memory/**/*.md').test('memory/b.md')).toBe(true);
    expect(globToRegExp('MEMORY.md').test('memory.md')).toBe(false);
  });
});

describe('mapLimit', () => {
  it('keeps input order, bounds calls in flight and stops on the first failure', async () => {
    const { mapLimit } = await import('./walk');
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n, i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0']);
    expect(peak).toBe(2);
    const started: number[] = [];
    await expect(mapLimit([0, 1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('boom');
      return n;
    })).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
