/**
 * A store sync writes its next state's log while the delta uploads (sync-store.ts): the log is on
 * disk before the target has answered, and an index names it only once the target accepts. When
 * the target refuses — it already holds this machine's own upload, whose answer was lost — the
 * prepared log is dropped before the adoption syncs again, so the state that sync writes (the same
 * generation) is the one kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '@/lib/ledger/testing/packer-process';
import { localTarget } from '../local-target';
import { restoreAgent } from '../restore';
import { statePaths } from '../state';
import { syncWorkspace } from '../sync';
import type { SyncTarget } from '../target';
import { makeSandbox, readTree, steppingClock } from '../testing/workspace';
import { readIndex } from './index-file';
import { storePaths } from './paths';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const day = (n: number) => `# 2026-11-01\n\n## Standup\nShipped the importer, ${n} times.\n\n## Review\nThe queue was reviewed.\n`;

async function sandbox() {
  const sb = await makeSandbox('lineage-upload-overlap-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const real = localTarget(sb.dataDir, clock);
  const sync = (target: SyncTarget = real) => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  return { sb, clock, real, sync };
}

/** The store's index of `agentId` and the sizes of the logs in its state directory, by name. */
async function stateOf(alfHome: string, agentId: string) {
  const dir = statePaths(alfHome, agentId).dir;
  const { index } = (await readIndex(storePaths(dir, agentId).index))!;
  const logs = new Map(fs.readdirSync(dir).filter((n) => n.endsWith('.log')).map((n) => [n, fs.statSync(path.join(dir, n)).size] as const));
  return { index, logs, log: (generation: number) => path.basename(storePaths(dir, agentId).log(generation)) };
}

/**
 * The generation whose log holds more than `before`'s index names — the current log grown, or the
 * next generation's there — or null: the next state is not on disk (yet).
 */
function nextOnDisk(alfHome: string, agentId: string, before: Awaited<ReturnType<typeof stateOf>>): number | null {
  const { generation, logLength } = before.index;
  const size = (g: number) => {
    try {
      return fs.statSync(storePaths(statePaths(alfHome, agentId).dir, agentId).log(g)).size;
    } catch {
      return null;
    }
  };
  if ((size(generation) ?? 0) > logLength) return generation;
  return (size(generation + 1) ?? 0) > 0 ? generation + 1 : null;
}

describe('a store sync and its upload', () => {
  it.each([
    ['appending to the log', {}],
    ['compacting it into a new generation', { LINEAGE_STORE_COMPACT_BYTES: '0' }],
  ] as const)('writes the next state while the delta uploads, %s', async (_, env) => {
    Object.assign(process.env, env);
    cleanups.push(async () => {
      for (const key of Object.keys(env)) delete process.env[key];
    });
    const { sb, real, sync } = await sandbox();
    await sb.write('memory/2026-11-01.md', day(1));
    const { agent } = await sync();
    const before = await stateOf(sb.alfHome, agent.alf_agent_id);
    let atUpload: number | null = null;
    // The target takes the delta only once the next state's log is on disk (else this test fails).
    const target: SyncTarget = {
      ...real,
      async pushDelta(agentId, base, bytes) {
        await waitUntil("the next state's log is on disk", () => (atUpload = nextOnDisk(sb.alfHome, agentId, before)) !== null, 10_000);
        return real.pushDelta(agentId, base, bytes);
      },
    };
    await sb.write('memory/2026-11-01.md', day(2));
    expect(await sync(target)).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
    const after = await stateOf(sb.alfHome, agent.alf_agent_id);
    // The log written before the upload was answered is the one the index names now.
    const compacts = 'LINEAGE_STORE_COMPACT_BYTES' in env;
    expect(after.index.generation).toBe(compacts ? before.index.generation + 1 : before.index.generation);
    expect(atUpload).toBe(after.index.generation);
    expect([...after.logs.keys()]).toEqual([after.log(after.index.generation)]);
    expect(await sync()).toMatchObject({ ok: true, sequence: 1, no_changes: true });
  });

  it('refused, the target holding its own upload (the answer lost): the prepared log is dropped before the adoption syncs again, and that sync\'s state is kept', async () => {
    process.env.LINEAGE_STORE_COMPACT_BYTES = '0';
    cleanups.push(async () => {
      delete process.env.LINEAGE_STORE_COMPACT_BYTES;
    });
    const { sb, clock, real, sync } = await sandbox();
    const states: Map<string, Buffer>[] = [];
    await sb.write('memory/2026-11-01.md', day(1));
    const { agent } = await sync();
    states.push(await readTree(sb.workspace));
    // The target takes the delta; its answer is lost.
    const lossy: SyncTarget = {
      ...real,
      async pushDelta(agentId, base, bytes) {
        await real.pushDelta(agentId, base, bytes);
        throw new Error('connection reset before the answer');
      },
    };
    await sb.write('memory/2026-11-01.md', day(2));
    await expect(sync(lossy)).rejects.toThrow(/connection reset/);
    states.push(await readTree(sb.workspace));
    // Edited again, the next sync prepares the next generation (it compacts), is refused, adopts
    // sequence 1 and syncs again from there: that sync uploads the edit and writes the same
    // generation (its base is the adopted `.alf`, the store's index still the one before).
    await sb.write('memory/2026-11-01.md', day(3));
    expect(await sync()).toMatchObject({ ok: true, sequence: 2, delta: true, recovered: true });
    states.push(await readTree(sb.workspace));
    const adopted = await stateOf(sb.alfHome, agent.alf_agent_id);
    expect(adopted.index.sequence).toBe(2);
    expect([...adopted.logs.keys()]).toEqual([adopted.log(adopted.index.generation)]);
    expect(await sync()).toMatchObject({ ok: true, sequence: 2, no_changes: true });
    await sb.write('memory/2026-11-01.md', day(4));
    expect(await sync()).toMatchObject({ ok: true, sequence: 3, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
    states.push(await readTree(sb.workspace));
    expect(await sync()).toMatchObject({ ok: true, sequence: 3, no_changes: true });
    for (const [seq, state] of states.entries()) {
      const out = path.join(sb.root, `restore-${seq}`);
      await restoreAgent({ runtime: 'openclaw', target: real, agentId: agent.alf_agent_id, out, atSequence: seq, replace: false, alfHome: path.join(sb.root, 'other-home'), clock });
      expect(await readTree(out)).toEqual(state);
    }
  });
});
