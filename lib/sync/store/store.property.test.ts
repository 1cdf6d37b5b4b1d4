import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTarget } from '../local-target';
import { fileKeysPath } from '../file-keys';
import { memoPath } from '../record-memo';
import { statCachePath } from '../stat-cache';
import { statePaths } from '../state';
import { syncWorkspace, type StateLayout, type SyncOutput } from '../sync';
import { apply, materialize, MD_FILES, op, render, seedModel, stressOp, type Model, type Op } from '../testing/histories';
import { encodeIndexV1 } from '../testing/index-v1';
import { readTree, steppingClock } from '../testing/workspace';
import { storeBaseBytes } from './export-alf';
import { readIndex } from './index-file';
import { KeysAhead } from './keys-ahead';
import { storePaths } from './paths';

const AGENT = '5c0e3f1a-7b2d-4c8e-9f6a-2b3c4d5e6f70';

/**
 * Three clients syncing the same workspace history side by side: `store` (the client state kept
 * per file, reconciling only what changed), `alf` (the `.alf` base rewritten whole, with its stat
 * cache, record memo and file keys) and `plain` (the `.alf` base with those removed before every
 * sync: every file read, every record built, everything reconciled — the reference). What they
 * upload must be the same bytes, and the base the store stands for must be the `.alf` the others keep.
 */
async function triplets(options: { ahead?: boolean } = {}) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-store-'));
  const side = (name: string, layout: StateLayout) => {
    const dir = path.join(root, name);
    const clock = steppingClock();
    return { layout, workspace: path.join(dir, 'ws'), alfHome: path.join(dir, 'alf-home'), dataDir: path.join(dir, 'data'), clock, target: localTarget(path.join(dir, 'data'), clock) };
  };
  type Side = ReturnType<typeof side>;
  const sides: { store: Side; alf: Side; plain: Side; ahead?: Side } & Record<string, Side | undefined> = { store: side('store', 'store'), alf: side('alf', 'alf'), plain: side('plain', 'alf') };
  // `ahead`: the store with a watch's keying ahead (keys-ahead.ts), fed each changed file at one of its versions.
  if (options.ahead) sides.ahead = side('ahead', 'store');
  const keysAhead = options.ahead ? new KeysAhead(sides.ahead!.workspace, sides.ahead!.alfHome) : null;
  let takenAhead = 0;
  const all = () => Object.values(sides) as Side[];
  for (const s of all()) {
    await fs.mkdir(s.workspace, { recursive: true });
    await fs.writeFile(path.join(s.workspace, '.alf-agent-id'), AGENT);
  }
  const lastChanged = new Map<string, number>();
  let step = 0;
  let previous = new Map<string, Buffer>();
  return {
    sides,
    /**
     * Writes the files into every workspace (a file's mtime: the step it last changed, or was
     * touched) and syncs each side.
     */
    async sync(files: Map<string, Buffer>, touched: readonly string[] = []): Promise<Record<string, SyncOutput>> {
      step++;
      const changed = [...files].filter(([rel, bytes]) => !previous.get(rel)?.equals(bytes) || touched.includes(rel)).map(([rel]) => rel);
      for (const rel of changed) lastChanged.set(rel, step);
      previous = files;
      const outs: Record<string, SyncOutput> = {};
      for (const [name, s] of Object.entries(sides) as [string, Side][]) {
        // Twenty days a step: records of files first seen at different steps fall in different quarters.
        const at = (rel: string) => new Date(Date.parse('2025-10-01T00:00:00Z') + lastChanged.get(rel)! * 20 * 86_400_000);
        // Keyed ahead: after its final write (taken), before its mtime is set (not: another mtime), at
        // a version it did not keep (not: other bytes), or not at all.
        const way = (rel: string) => (step * 7 + changed.indexOf(rel)) % 4;
        if (keysAhead && name === 'ahead') {
          for (const rel of changed) {
            if (way(rel) !== 2) continue;
            await fs.mkdir(path.dirname(path.join(s.workspace, rel)), { recursive: true });
            await fs.writeFile(path.join(s.workspace, rel), `## an intermediate version of ${rel}\nat step ${step}\n`);
            keysAhead.changed(rel);
          }
          await keysAhead.settled();
        }
        await materialize(s.workspace, files);
        if (keysAhead && name === 'ahead') {
          for (const rel of changed) if (way(rel) === 1) keysAhead.changed(rel);
          await keysAhead.settled();
        }
        for (const rel of changed) {
          const when = at(rel);
          await fs.utimes(path.join(s.workspace, rel), when, when);
        }
        if (keysAhead && name === 'ahead') {
          for (const rel of changed) if (way(rel) === 0) keysAhead.changed(rel);
          await keysAhead.settled();
        }
        if (name === 'plain') {
          const dir = statePaths(s.alfHome, AGENT).dir;
          await Promise.all([memoPath(dir, AGENT), fileKeysPath(dir, AGENT), statCachePath(dir, AGENT)].map((f) => fs.rm(f, { force: true })));
        }
        const ahead = name === 'ahead' ? keysAhead ?? undefined : undefined;
        const log = (line: string) => {
          const taken = /^(\d+) changed files? keyed ahead/.exec(line);
          if (taken) takenAhead += Number(taken[1]);
        };
        outs[name] = ahead ? await ahead.during(() => syncWorkspace({ runtime: 'openclaw', workspace: s.workspace, target: s.target, alfHome: s.alfHome, clock: s.clock, layout: s.layout, keysAhead: ahead, log }))
          : await syncWorkspace({ runtime: 'openclaw', workspace: s.workspace, target: s.target, alfHome: s.alfHome, clock: s.clock, layout: s.layout });
      }
      return outs;
    },
    /** How many changed files the `ahead` side's syncs took keyed ahead. */
    takenAhead: () => takenAhead,
    async expectSame(outs: Record<string, SyncOutput>): Promise<void> {
      const strip = (o: SyncOutput) => ({ ...o, snapshot_path: undefined });
      for (const name of Object.keys(sides)) if (name !== 'plain') expect(strip(outs[name]!), name).toEqual(strip(outs.plain!));
      const blobs = await Promise.all(all().map((s) => readTree(path.join(s.dataDir, 'blobs'))));
      for (const other of blobs.slice(1)) {
        expect([...other.keys()]).toEqual([...blobs[0]!.keys()]);
        for (const [name, bytes] of other) expect(bytes.equals(blobs[0]!.get(name)!), name).toBe(true);
      }
      const plainBase = await fs.readFile(statePaths(sides.plain.alfHome, AGENT).snapshot);
      expect((await fs.readFile(statePaths(sides.alf.alfHome, AGENT).snapshot)).equals(plainBase)).toBe(true);
      for (const name of ['store', 'ahead'].filter((n) => sides[n])) {
        const fromStore = await storeBaseBytes(sides[name]!.alfHome, AGENT, outs.plain!.sequence);
        expect(fromStore, `the ${name} store is at the sequence of the others`).not.toBeNull();
        expect(Buffer.from(fromStore!.bytes).equals(plainBase), name).toBe(true);
      }
    },
    cleanup: () => {
      keysAhead?.close();
      return fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Up to three edits of the model synced at once (several files change), or a touch: a file's mtime moved, its bytes the same. */
const step = fc.oneof(
  { arbitrary: fc.array(op, { minLength: 1, maxLength: 3 }).map((ops) => ({ ops, touch: null as string | null })), weight: 5 },
  { arbitrary: fc.constantFrom(...MD_FILES).map((file) => ({ ops: [] as Op[], touch: file as string | null })), weight: 1 },
);

/** The same with the edits that stress keeping a changed file's unchanged sections (histories.ts `stressOp`). */
const stressStep = fc.oneof(
  { arbitrary: fc.array(stressOp, { minLength: 1, maxLength: 3 }).map((ops) => ({ ops, touch: null as string | null })), weight: 5 },
  { arbitrary: fc.constantFrom(...MD_FILES).map((file) => ({ ops: [] as Op[], touch: file as string | null })), weight: 1 },
);

/** A random history of steps, synced by the three sides, compared after every step (and `after` each, on the store's state directory). */
async function history(steps: { ops: Op[]; touch: string | null }[], after: (stateDir: string) => Promise<void> = async () => {}, options: { ahead?: (taken: number) => void } = {}): Promise<void> {
  const t = await triplets({ ahead: options.ahead !== undefined });
  try {
    const model: Model = seedModel();
    MD_FILES.forEach((file, f) => model.md.set(file, Array.from({ length: 6 }, (_, n) => ({ heading: `Topic ${f}.${n}`, body: `fact ${f}.${n}` }))));
    for (const { ops, touch } of [{ ops: [] as Op[], touch: null }, ...steps]) {
      for (const o of ops) apply(model, o);
      await t.expectSame(await t.sync(render(model), touch ? [touch] : []));
      await after(statePaths(t.sides.store.alfHome, AGENT).dir);
    }
    options.ahead?.(t.takenAhead());
  } finally {
    await t.cleanup();
  }
}

describe('the client-state store', () => {
  it('uploads and keeps exactly what a sync with the .alf base does, over random edit histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => history(steps)),
      { numRuns: 30, seed: 20261203, endOnFailure: true },
    );
  }, 600_000);

  it('the same over histories that stress a changed file\'s unchanged sections: duplicates, swaps, copies, multi-line edits, CRLF, no final newline', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stressStep, { minLength: 1, maxLength: 14 }), (steps) => history(steps)),
      { numRuns: 25, seed: 20261204, endOnFailure: true },
    );
  }, 600_000);

  it('the same with a watch keying changed files ahead: taken when keyed from the bytes and mtime the sync reads, against its state; else keyed by the sync', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stressStep, { minLength: 1, maxLength: 12 }), (steps) => history(steps, undefined, { ahead: (n) => (taken += n) })),
      { numRuns: 20, seed: 20261206, endOnFailure: true },
    );
    expect(taken, 'syncs took files keyed ahead').toBeGreaterThan(20);
  }, 600_000);

  it('the same when the log is compacted at every sync that leaves dead bytes in it (a new generation written whole)', async () => {
    process.env.LINEAGE_STORE_COMPACT_BYTES = '0';
    let generations = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 10 }), (steps) => history(steps, async (dir) => {
          // One generation's log, the one the index names, is all there is.
          const logs = (await fs.readdir(dir)).filter((n) => n.endsWith('.log'));
          const read = await readIndex(storePaths(dir, AGENT).index);
          expect(logs).toEqual([path.basename(storePaths(dir, AGENT).log(read!.index.generation))]);
          generations = Math.max(generations, read!.index.generation);
        })),
        { numRuns: 8, seed: 20261205, endOnFailure: true },
      );
    } finally {
      delete process.env.LINEAGE_STORE_COMPACT_BYTES;
    }
    expect(generations, 'some history compacted its log').toBeGreaterThan(2);
  }, 600_000);

  it('the same when every sync starts from a lineage-state 1 index (a store the clients before left): a sync that uploads writes lineage-state 2', async () => {
    let rewritten = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => history(steps, async (dir) => {
        const file = storePaths(dir, AGENT).index;
        const bytes = await fs.readFile(file);
        // An idle sync writes nothing: what it leaves is the lineage-state 1 index it found.
        if (bytes.subarray(0, 16).toString('latin1') !== 'lineage-state 2 ') return;
        rewritten++;
        const { index, writtenNs } = (await readIndex(file))!;
        // Its racy bound kept (the rewrite is later than the sync that took the stat data).
        await fs.writeFile(file, encodeIndexV1({ ...index, meta: { ...index.meta, stat_time_ns: String(writtenNs) } }));
      })),
      { numRuns: 10, seed: 20261206, endOnFailure: true },
    );
    expect(rewritten, 'syncs from a lineage-state 1 index wrote lineage-state 2').toBeGreaterThan(10);
  }, 600_000);

  it('a workspace that turns v4.1 and back (a tier directory comes and goes): files whose bytes stayed are no raw change, though their digests moved with their tier', async () => {
    const t = await triplets();
    try {
      const memory = Buffer.from('# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const notes = Buffer.from('# notes\n\n## Queue\nRedis.\n');
      const infra = Buffer.from('# infra\n\n## Hosts\nThree.\n');
      for (const files of [
        [['MEMORY.md', memory], ['memory/notes.md', notes]],
        [['MEMORY.md', memory], ['memory/notes.md', notes], ['memory/semantic/infra.md', infra]],
        [['MEMORY.md', memory], ['memory/notes.md', notes]],
      ] as [string, Buffer][][]) {
        const outs = await t.sync(new Map(files));
        await t.expectSame(outs);
        // MEMORY.md's records change with its tier, its bytes do not: at most the tier file is a raw change.
        expect(outs.plain!.raw?.changed ?? 0).toBeLessThanOrEqual(1);
      }
    } finally {
      await t.cleanup();
    }
  }, 120_000);

  it('a principal source removed (USER.md deleted), an idle sync, an edit, USER.md back: the same bytes on every side, the removal a {"principals": []}', async () => {
    const t = await triplets();
    try {
      const memory = Buffer.from('# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const user = Buffer.from('# User\nDana, on call Mondays.\n');
      const steps: { files: [string, Buffer][]; expect: Partial<SyncOutput> }[] = [
        { files: [['MEMORY.md', memory], ['USER.md', user]], expect: { sequence: 0, delta: false } },
        { files: [['MEMORY.md', memory]], expect: { sequence: 1, delta: true, raw: { changed: 0, deleted: 1 } } },
        { files: [['MEMORY.md', memory]], expect: { sequence: 1, no_changes: true } },
        { files: [['MEMORY.md', Buffer.from('# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n')]], expect: { sequence: 2, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } } },
        { files: [['MEMORY.md', memory], ['USER.md', user]], expect: { sequence: 3, delta: true } },
      ];
      for (const { files, expect: expected } of steps) {
        const outs = await t.sync(new Map(files));
        expect(outs.plain).toMatchObject(expected);
        await t.expectSame(outs);
      }
      // What each side uploaded at sequence 1 (the same bytes, expectSame says): the empty principals document.
      const { listEntries, openLedger, readEntryBytes } = await import('@/lib/ledger');
      const { readDelta } = await import('@/lib/core/archive');
      const ledger = openLedger(t.sides.store.dataDir);
      const entries = listEntries({ ledger, agentId: AGENT });
      const layers = await Promise.all(entries.slice(1).map(async (entry) => (await readDelta(await readEntryBytes({ ledger, entry }))).layers.principals));
      expect(layers[0]).toEqual({ principals: [] });
      expect(layers[1]).toBeUndefined();
      expect(layers[2]).toMatchObject({ principals: [{ principal_type: 'human' }] });
    } finally {
      await t.cleanup();
    }
  }, 120_000);

  /**
   * A changed file's sections that did not change are carried over unread (plan.ts): an updated
   * section keeps its id, is paired late, then early, and a section with its first content (the
   * birth id it keeps) comes beside it.
   */
  it('carried sections beside an updated one and a section with its first content: the ids come out as a full reconcile gives them', async () => {
    const t = await triplets();
    try {
      const file = (sections: string[]) => new Map([
        ['memory/project-a.md', Buffer.from(`# a\n\n${sections.map((x) => `${x}\n`).join('\n')}`)],
        ['memory/project-b.md', Buffer.from('# b\n\n## Count\n0\n')],
      ]);
      const others = ['## p\none', '## q\ntwo', '## r\nthree', '## s\nfour'];
      // x is minted from "foo", updated to "foo 2" (it keeps its id), paired early at the next sync,
      // and then a section with x's first content comes: its record is built with x's id.
      for (const sections of [['## x\nfoo', '## y\nbar', ...others], ['## x\nfoo 2', '## y\nbar', ...others], ['## x\nfoo 2', '## y\nbar 2', ...others],
        ['## x\nfoo 2', '## y\nbar 2', ...others, '## x\nfoo'], ['## x\nfoo 2', '## y\nbar 3', ...others, '## x\nfoo']]) {
        await t.expectSame(await t.sync(file(sections)));
      }
    } finally {
      await t.cleanup();
    }
  }, 120_000);

  /**
   * Reconcile is not idempotent when a file holds the same section twice (FIFO pairs of duplicates,
   * heading matches, re-mints): syncing an unchanged file again can give its records other ids.
   * The store skips an unchanged file only when it tried that and nothing changed (stable.ts).
   */
  it('a file whose reconcile of the same export again is not a no-op is reconciled again (found by a search of random histories)', async () => {
    // Five versions of a file of repeated sections; after the last, its records' ids would move
    // between its two `## g / z` sections if it were reconciled again: a sync that changes only
    // another file must still do so, as a sync reconciling everything does.
    const versions = [['## k\ny', '## g\ny'], ['## k\nz', '## k\nx '], ['## g\nz', '## g\nz', '## h\nx'], ['## g\nx ', '## k\nz', '## g\nx ', '## k\ny'],
      ['## h\nx ', '## g\ny', '## g\ny', '## g\nz', '## k\nx'], ['## g\nz', '## g\nz', '## k\ny']];
    const t = await triplets();
    try {
      const files = (sections: string[], count: number) => new Map([
        ['memory/project-a.md', Buffer.from(`# a\n${sections.map((x) => `${x}\n`).join('')}`)],
        ['memory/project-b.md', Buffer.from(`# b\n\n## Count\n${count}\n`)],
      ]);
      for (const sections of versions) await t.expectSame(await t.sync(files(sections, 0)));
      await t.expectSame(await t.sync(files(versions.at(-1)!, 1)));
      await t.expectSame(await t.sync(files(versions.at(-1)!, 2)));
    } finally {
      await t.cleanup();
    }
  }, 120_000);
});
