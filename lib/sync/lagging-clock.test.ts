/**
 * A machine whose clock is behind another's, after it restores or rebases onto the head that other machine's
 * `--force-first-sync` snapshot made: its `last_synced_at` was its own now, earlier than the snapshot's
 * created_at, so its next delta (whose `sync.base_timestamp` that is) was refused as built on the head the
 * snapshot replaced (base_superseded, lib/ledger/ingest-base.ts). It now records the later of the two, and its
 * delta is taken. The same when the head is another machine's delta (the ingest compares with the entry at the
 * base, whatever its kind): the later of now and that delta's created_at. On a --data directory and a served
 * instance over HTTP.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { startTestServer } from '@/tests/server/harness';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import { rebaseWorkspace } from './rebase';
import { restoreAgent, syncedAtOnto } from './restore';
import { readClientState } from './state';
import { syncWorkspace } from './sync';
import type { SyncTarget } from './target';
import { deltaByB, replacedByB } from './testing/two-machines';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const SETUPS: [string, (dataDir: string) => Promise<{ target: SyncTarget; close(): Promise<void> }>][] = [
  ['a --data directory', async (dataDir) => ({ target: localTarget(dataDir, () => new Date(), { packing: 'inline', indexing: 'inline' }), close: async () => {} })],
  ['a served instance over HTTP', async () => {
    const t = await startTestServer();
    return { target: httpTarget({ baseUrl: t.url, apiKey: t.keyA }), close: () => t.close() };
  }],
];

/** Machine B's clock: a day ahead of machine A's. */
const AHEAD = Date.parse('2026-11-02T09:00:00Z');

/**
 * The machine that took B's head as its base (`ws`, `home`), its clock A's, a day behind: its state records
 * the head's `createdAt`, not its own now; its next delta (`memoryOf`'s MEMORY.md and a Charlie section) is
 * taken at 2, and restores as written.
 */
async function goesOnAfterTheHead(args: {
  sb: Awaited<ReturnType<typeof makeSandbox>>; target: SyncTarget; agentId: string; ws: string; home: string; clockA: () => Date; createdAt: unknown; memoryOf: string;
}): Promise<void> {
  const { sb, target, agentId, ws, home, clockA, createdAt } = args;
  expect(Date.parse(clockA().toISOString())).toBeLessThan(AHEAD);
  expect((await readClientState(home, agentId))?.last_synced_at).toBe(createdAt);

  const text = `${await fs.readFile(path.join(args.memoryOf, 'MEMORY.md'), 'utf8')}\n## Charlie\ncharlie fact\n`;
  await fs.writeFile(path.join(ws, 'MEMORY.md'), text);
  expect(await syncWorkspace({ runtime: 'openclaw', workspace: ws, target, alfHome: home, clock: clockA })).toMatchObject({ sequence: 2, delta: true });
  const out = path.join(sb.root, 'out');
  await restoreAgent({ runtime: 'openclaw', target, agentId, out, replace: false, alfHome: home, clock: clockA });
  expect((await readTree(out)).get('MEMORY.md')?.toString()).toBe(text);
}

describe.each(SETUPS)('a clock behind the head snapshot\'s maker: %s', (_name, make) => {
  for (const how of ['restore', 'rebase'] as const) {
    it(`after a ${how} onto B's snapshot, A records its created_at and A's next delta is taken`, async () => {
      const sb = await makeSandbox('lineage-lagging-clock-');
      const setup = await make(sb.dataDir);
      try {
        const { target } = setup;
        const clockA = steppingClock();
        const clockB = steppingClock(AHEAD);
        // B, its clock a day ahead, replaces the head at 1 with its own snapshot.
        const { agentId, wsA, homeA } = await replacedByB({ sb, target, clockA, clockB });
        const head = await target.latestEntry(agentId);
        expect(head).toMatchObject({ sequence: 1, kind: 'snapshot' });
        const createdAt = (await readSnapshot(await head!.bytes())).manifest.created_at;
        expect(Date.parse(String(createdAt))).toBeGreaterThanOrEqual(AHEAD);

        // The machine that takes the head as its base: A by a rebase, or a new machine C (A's clock) by a
        // restore into an empty workspace (A's own workspace says it is at sequence 1 already: restore's 'none').
        const ws = how === 'restore' ? path.join(sb.root, 'ws-c') : wsA;
        const home = how === 'restore' ? path.join(sb.root, 'home-c') : homeA;
        if (how === 'restore') {
          const restored = await restoreAgent({ runtime: 'openclaw', target, agentId, workspace: ws, replace: false, alfHome: home, clock: clockA });
          expect(restored).toMatchObject({ sequence: 1, action: 'initialize', applied: true });
          expect(await fs.readFile(path.join(ws, 'MEMORY.md'), 'utf8')).toContain('bravo fact from B');
        } else {
          expect(await rebaseWorkspace({ runtime: 'openclaw', workspace: ws, target, alfHome: home, clock: clockA })).toMatchObject({ sequence: 1, previous_sequence: 1 });
        }
        // Its clock is a day behind B's snapshot: its state records the snapshot's created_at, not its own now.
        await goesOnAfterTheHead({ sb, target, agentId, ws, home, clockA, createdAt, memoryOf: ws });
      } finally {
        await setup.close();
        await sb.cleanup();
      }
    });
  }
});

describe('syncedAtOnto: the later of now and the head snapshot\'s created_at, in the state\'s form', () => {
  const now = new Date('2026-11-01T09:00:00.500Z');
  it.each([
    ['2026-11-01T08:00:00Z', '2026-11-01T09:00:00.500Z'],
    ['2026-11-01T09:00:00.500Z', '2026-11-01T09:00:00.500Z'],
    ['2026-11-01T11:00:00+02:00', '2026-11-01T09:00:00.500Z'],
    ['2026-11-01T11:00:01+02:00', '2026-11-01T09:00:01.000Z'],
    // Later than now by nanoseconds alone: kept to the nanosecond (a millisecond form would be earlier).
    ['2026-11-01T09:00:00.500000001Z', '2026-11-01T09:00:00.500000001Z'],
    ['2026-11-01T10:00:00.25-01:00', '2026-11-01T11:00:00.250Z'],
    ['not a time', '2026-11-01T09:00:00.500Z'],
    [undefined, '2026-11-01T09:00:00.500Z'],
  ])('created_at %s', (createdAt, expected) => {
    expect(syncedAtOnto(now, createdAt)).toBe(expected);
  });
});

describe.each(SETUPS)('a clock behind the head delta\'s maker (the entry at the base, whatever its kind): %s', (_name, make) => {
  for (const how of ['restore', 'rebase'] as const) {
    it(`after a ${how} onto B's delta, A records that delta's created_at and A's next delta is taken`, async () => {
      const sb = await makeSandbox('lineage-lagging-clock-delta-');
      const setup = await make(sb.dataDir);
      try {
        const { target } = setup;
        const clockA = steppingClock();
        const clockB = steppingClock(AHEAD);
        // A syncs (its snapshot at 0); B, its clock a day ahead, restores the head and syncs a delta at 1.
        const { agentId, wsA, homeA, wsB } = await deltaByB({ sb, target, clockA, clockB });
        const head = await target.latestEntry(agentId);
        expect(head).toMatchObject({ sequence: 1, kind: 'delta' });
        const createdAt = (await readDelta(await head!.bytes())).manifest.created_at;
        expect(Date.parse(String(createdAt))).toBeGreaterThanOrEqual(AHEAD);

        const ws = how === 'restore' ? path.join(sb.root, 'ws-c') : wsA;
        const home = how === 'restore' ? path.join(sb.root, 'home-c') : homeA;
        if (how === 'restore') {
          expect(await restoreAgent({ runtime: 'openclaw', target, agentId, workspace: ws, replace: false, alfHome: home, clock: clockA })).toMatchObject({ sequence: 1, action: 'initialize', applied: true });
        } else {
          expect(await rebaseWorkspace({ runtime: 'openclaw', workspace: ws, target, alfHome: home, clock: clockA })).toMatchObject({ sequence: 1, previous_sequence: 0 });
        }
        // Its clock is a day behind B's delta: its state records that delta's created_at, not its own now.
        await goesOnAfterTheHead({ sb, target, agentId, ws, home, clockA, createdAt, memoryOf: how === 'restore' ? ws : wsB });
      } finally {
        await setup.close();
        await sb.cleanup();
      }
    });
  }
});
