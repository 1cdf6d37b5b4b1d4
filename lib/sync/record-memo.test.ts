import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '@/lib/core/uuid';
import { localTarget } from './local-target';
import { encodeFileKeys, fileKeysPath, parseFileKeys } from './file-keys';
import { encodeRecordMemo, memoPath, parseRecordMemo } from './record-memo';
import { baseIdentity, readStatCache, statCachePath } from './stat-cache';
import { statePaths } from './state';
import { syncWorkspace, type SyncOutput } from './sync';
import { apply, materialize, MD_FILES, op, render, seedModel, type Model, type Op } from './testing/histories';
import { readTree, steppingClock } from './testing/workspace';

const AGENT = '0b6f3c1e-5d2a-4e8f-9c7b-1a2b3c4d5e6f';
const SHA = sha256Hex('a base');
const key = (n: number) => sha256Hex(`key ${n}`).slice(0, 32);
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('record memo file', () => {
  it('reads back what it wrote, for the base it names only', () => {
    const bytes = encodeRecordMemo({ added: [[key(1), id(1)], [key(2), id(2)]] }, SHA);
    expect([...parseRecordMemo(bytes, SHA)!]).toEqual([[key(1), id(1)], [key(2), id(2)]]);
    expect(parseRecordMemo(bytes, sha256Hex('another base'))).toBeNull();
  });

  it('ignores a memo it cannot read exactly: truncated, padded, foreign header, repeated key', () => {
    const bytes = encodeRecordMemo({ added: [[key(1), id(1)], [key(2), id(2)]] }, SHA);
    expect(parseRecordMemo(bytes.subarray(0, bytes.length - 1), SHA)).toBeNull();
    expect(parseRecordMemo(Buffer.concat([bytes, Buffer.from('x')]), SHA)).toBeNull();
    expect(parseRecordMemo(Buffer.from(`lineage-record-memo 2 ${SHA} 0\n`), SHA)).toBeNull();
    expect(parseRecordMemo(Buffer.from('not a memo at all'), SHA)).toBeNull();
    expect(parseRecordMemo(encodeRecordMemo({ added: [[key(1), id(1)], [key(1), id(2)]] }, SHA), SHA)).toBeNull();
    expect(parseRecordMemo(Buffer.alloc(0), SHA)).toBeNull();
  });

  it('carries entries of the memo it was read from as they are, with the new ones after them', () => {
    const read = parseRecordMemo(encodeRecordMemo({ added: [1, 2, 3, 4, 5].map((n) => [key(n), id(n)] as const) }, SHA), SHA)!;
    const next = sha256Hex('the next base');
    const bytes = encodeRecordMemo({ reused: { memo: read, entries: [0, 1, 3] }, added: [[key(9), id(9)]] }, next);
    expect([...parseRecordMemo(bytes, next)!]).toEqual([[key(1), id(1)], [key(2), id(2)], [key(4), id(4)], [key(9), id(9)]]);
    expect(read.entryOf(key(4))).toBe(3);
    expect(read.idAt(read.entryOf(key(4)))).toBe(id(4));
    expect(read.entryOf(key(9))).toBe(-1);
  });

  it('leaves out entries that do not fit its fixed width', () => {
    const bytes = encodeRecordMemo({ added: [[key(1), id(1)], [key(2), 'short'], [key(3), `${id(3).slice(0, 35)}é`], ['k', id(4)]] }, SHA);
    expect([...parseRecordMemo(bytes, SHA)!]).toEqual([[key(1), id(1)]]);
  });
});

/**
 * Two clients syncing the same workspace history side by side, both with the `.alf` layout (the
 * store's own twins are in store/store.property.test.ts): `memo` as a sync normally runs,
 * `plain` with its record memo and file keys removed before every sync (so every file is chunked
 * and every record built, serialized and compared). What they upload and keep must be the same bytes.
 */
async function twins() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-memo-'));
  const side = (name: string) => {
    const dir = path.join(root, name);
    const clock = steppingClock();
    return { workspace: path.join(dir, 'ws'), alfHome: path.join(dir, 'alf-home'), dataDir: path.join(dir, 'data'), clock, target: localTarget(path.join(dir, 'data'), clock) };
  };
  const sides = { memo: side('memo'), plain: side('plain') };
  for (const s of Object.values(sides)) {
    await fs.mkdir(s.workspace, { recursive: true });
    await fs.writeFile(path.join(s.workspace, '.alf-agent-id'), AGENT);
  }
  const memoFile = (s: { alfHome: string }) => memoPath(statePaths(s.alfHome, AGENT).dir, AGENT);
  const fileKeysFile = (s: { alfHome: string }) => fileKeysPath(statePaths(s.alfHome, AGENT).dir, AGENT);
  const statFile = (s: { alfHome: string }) => statCachePath(statePaths(s.alfHome, AGENT).dir, AGENT);
  const lastChanged = new Map<string, number>();
  let step = 0;
  let previous = new Map<string, Buffer>();
  return {
    sides,
    memoFile,
    fileKeysFile,
    /** Writes the files into both workspaces (each file's mtime: the step it last changed) and syncs both. */
    async sync(files: Map<string, Buffer>): Promise<{ memo: SyncOutput; plain: SyncOutput }> {
      step++;
      for (const [rel, bytes] of files) if (!previous.get(rel)?.equals(bytes)) lastChanged.set(rel, step);
      previous = files;
      const outs: Partial<Record<'memo' | 'plain', SyncOutput>> = {};
      for (const [name, s] of Object.entries(sides) as ['memo' | 'plain', (typeof sides)['memo']][]) {
        await materialize(s.workspace, files);
        for (const rel of files.keys()) {
          // Only files written at this step: the others keep their stat data (ctime too), as in a real workspace.
          if (lastChanged.get(rel) !== step) continue;
          const at = new Date(Date.parse('2026-10-01T00:00:00Z') + lastChanged.get(rel)! * 3_600_000);
          await fs.utimes(path.join(s.workspace, rel), at, at);
        }
        if (name === 'plain') await Promise.all([fs.rm(memoFile(s), { force: true }), fs.rm(fileKeysFile(s), { force: true }), fs.rm(statFile(s), { force: true })]);
        outs[name] = await syncWorkspace({ runtime: 'openclaw', workspace: s.workspace, target: s.target, alfHome: s.alfHome, clock: s.clock, layout: 'alf' });
      }
      return outs as { memo: SyncOutput; plain: SyncOutput };
    },
    /** Uploads (ledger blobs) and kept bases of the two sides are the same bytes. */
    async expectSame(outs: { memo: SyncOutput; plain: SyncOutput }): Promise<void> {
      const strip = (o: SyncOutput) => ({ ...o, snapshot_path: undefined });
      expect(strip(outs.memo)).toEqual(strip(outs.plain));
      const [memoBlobs, plainBlobs] = await Promise.all([readTree(path.join(sides.memo.dataDir, 'blobs')), readTree(path.join(sides.plain.dataDir, 'blobs'))]);
      expect([...memoBlobs.keys()]).toEqual([...plainBlobs.keys()]);
      for (const [name, bytes] of memoBlobs) expect(bytes.equals(plainBlobs.get(name)!), name).toBe(true);
      const base = (s: { alfHome: string }) => fs.readFile(statePaths(s.alfHome, AGENT).snapshot);
      expect((await base(sides.memo)).equals(await base(sides.plain))).toBe(true);
    },
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}

describe('syncing with the record memo', () => {
  const open: { cleanup(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.cleanup();
  });

  it('uploads and keeps exactly what a sync building every record does, over random edit histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const t = await twins();
        try {
          // Enough sections that most known records go unchecked (one in SPOT_CHECK is built anyway).
          const model: Model = seedModel();
          MD_FILES.forEach((file, f) => model.md.set(file, Array.from({ length: 8 }, (_, n) => ({ heading: `Topic ${f}.${n}`, body: `fact ${f}.${n}` }))));
          for (const o of [{ kind: 'idle' as const }, ...ops] as Op[]) {
            apply(model, o);
            await t.expectSame(await t.sync(render(model)));
            // The memo side keeps a memo for its current base, which the next sync reads.
            const kept = parseRecordMemo(await fs.readFile(t.memoFile(t.sides.memo)), sha256Hex(await fs.readFile(statePaths(t.sides.memo.alfHome, AGENT).snapshot)));
            expect(kept).not.toBeNull();
            // And the stat cache of every file it exported, naming that base (its next export opens
            // none of the files left unchanged).
            const statCache = await readStatCache(statCachePath(statePaths(t.sides.memo.alfHome, AGENT).dir, AGENT));
            expect(statCache).toMatchObject({ base: await baseIdentity(statePaths(t.sides.memo.alfHome, AGENT).snapshot), size: render(model).size });
            // And the keys of every markdown file it exported, for the next export.
            const fileKeys = parseFileKeys(await fs.readFile(t.fileKeysFile(t.sides.memo)));
            expect(fileKeys.size).toBe([...render(model).keys()].filter((rel) => rel.endsWith('.md') && (rel === 'MEMORY.md' || rel.startsWith('memory/'))).length);
          }
        } finally {
          await t.cleanup();
        }
      }),
      { numRuns: 25, seed: 20261201, endOnFailure: true },
    );
  }, 240_000);

  /**
   * Twelve facts synced by both sides; `tamper` then changes what the memo side remembers, one fact
   * is revised, and the next sync must still be exactly one update, the same bytes on both sides.
   */
  async function syncAfterTampering(tamper: (t: Awaited<ReturnType<typeof twins>>) => Promise<void>): Promise<void> {
    const t = await twins();
    open.push(t);
    const model: Model = seedModel();
    const sections = Array.from({ length: 12 }, (_, n) => ({ heading: `Fact ${n}`, body: `value ${n}` }));
    model.md.set('memory/semantic/facts.md', sections);
    await t.expectSame(await t.sync(render(model)));
    await tamper(t);
    sections[3] = { heading: 'Fact 3', body: 'value 3, revised' };
    const outs = await t.sync(render(model));
    expect(outs.memo.changes).toEqual({ creates: 0, updates: 1, deletes: 0 });
    await t.expectSame(outs);
  }

  it('a memo that names the wrong records is caught by its spot check, and the sync comes out right', async () => {
    await syncAfterTampering(async (t) => {
      // Every key now names another record's id; the header still names the right base.
      const file = t.memoFile(t.sides.memo);
      const bytes = await fs.readFile(file);
      const base = sha256Hex(await fs.readFile(statePaths(t.sides.memo.alfHome, AGENT).snapshot));
      const entries = [...parseRecordMemo(bytes, base)!];
      expect(entries.length).toBeGreaterThan(10);
      await fs.writeFile(file, encodeRecordMemo({ added: entries.map(([k], n) => [k, entries[(n + 1) % entries.length]![1]] as const) }, base));
    });
  });

  it('file keys that name other keys for every file: records are built where the memo does not know them, and the sync comes out right', async () => {
    await syncAfterTampering(async (t) => {
      const file = t.fileKeysFile(t.sides.memo);
      const remembered = parseFileKeys(await fs.readFile(file));
      expect(remembered.size).toBeGreaterThan(0);
      await fs.writeFile(file, encodeFileKeys(new Map([...remembered].map(([digest, keys]) => [digest, keys.map((_, i) => sha256Hex(`other ${i}`).slice(0, 32))]))));
    });
  });

  it('a memo left from another base is not used', async () => {
    const t = await twins();
    open.push(t);
    const model: Model = seedModel();
    model.md.set('memory/semantic/facts.md', [{ heading: 'A', body: 'one' }, { heading: 'B', body: 'two' }]);
    await t.expectSame(await t.sync(render(model)));
    const stale = await fs.readFile(t.memoFile(t.sides.memo));
    model.md.get('memory/semantic/facts.md')!.push({ heading: 'C', body: 'three' });
    await t.expectSame(await t.sync(render(model)));
    // The memo of the first base, with its keys pointing at records of the first base.
    await fs.writeFile(t.memoFile(t.sides.memo), stale);
    model.md.get('memory/semantic/facts.md')![0] = { heading: 'A', body: 'one, edited' };
    await t.expectSame(await t.sync(render(model)));
  });
});
