import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { listEntries, openLedger } from '@/lib/ledger';
import { SyncError } from './errors';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { readClientState, statePaths } from './state';
import { syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const ZC_AGENT = 'aaaaaaaa-0000-4000-8000-0000000000aa';

/** A workspace of `runtime` holding memories, and a sync of it with any `-r`. */
async function sandboxOf(runtime: Runtime, layout: StateLayout = 'store') {
  const sb = await makeSandbox('lineage-wrong-r-');
  cleanups.push(sb.cleanup);
  if (runtime === 'openclaw') {
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\nShipped the release.\n');
  } else if (runtime === 'hermes') {
    await seedStateDb(sb.workspace, [{ id: 's1', source: 'cli', title: 'Chat', started_at: 1780000000, ended_at: 1780000100 }], [
      { session_id: 's1', role: 'user', content: 'What is our gateway?', timestamp: 1780000001 },
    ]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n' });
  } else {
    await seedBrainDb({
      workspace: sb.workspace,
      agents: [{ id: ZC_AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
      rows: [{ id: '10000000-0000-4000-8000-0000000000a1', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: ZC_AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
    });
  }
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = (as: Runtime, extra: { workspace?: string; changeRuntime?: boolean } = {}) => syncWorkspace({
    runtime: as, workspace: extra.workspace ?? sb.workspace, runtimeAgent: as === 'zeroclaw' ? 'scout' : undefined,
    target, alfHome: sb.alfHome, clock, layout, changeRuntime: extra.changeRuntime,
  });
  return { sb, sync, target, clock };
}

/** Everything a refused sync must leave as it was: the ledger's entries, the client state's files, the workspace's files. */
async function everything(sb: Awaited<ReturnType<typeof makeSandbox>>, agentId: string) {
  const entries = listEntries({ ledger: openLedger(sb.dataDir), agentId }).map((e) => JSON.stringify(e));
  const state = await readTree(statePaths(sb.alfHome, agentId).dir, []).catch(() => new Map());
  const workspace = await readTree(sb.workspace, []);
  return { entries, state, workspace };
}

async function refusal(run: Promise<unknown>): Promise<SyncError> {
  const error = await run.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SyncError);
  return error as SyncError;
}

// Each pair where the other runtime's export finds the same agent id (the workspace's `.alf-agent-id`).
const PAIRS: [Runtime, Runtime][] = [['openclaw', 'hermes'], ['hermes', 'openclaw'], ['zeroclaw', 'openclaw'], ['zeroclaw', 'hermes']];

describe('a sync with another -r than the agent was synced as', () => {
  for (const [from, to] of PAIRS) {
    it(`${from} workspace synced as ${to}: refused, naming both runtimes, with nothing written`, async () => {
      const { sb, sync } = await sandboxOf(from);
      const first = await sync(from);
      const agentId = first.agent.alf_agent_id;
      expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe(from);
      const before = await everything(sb, agentId);
      const error = await refusal(sync(to));
      expect(error.code).toBe('agent_id_drift');
      expect(error.message).toContain(`agent ${agentId}`);
      expect(error.message).toContain(`last synced with -r ${from}, not -r ${to}; nothing was synced`);
      expect(error.hint).toContain(`lineage sync -r ${from} -w ${sb.workspace}`);
      expect(error.hint).toContain('--change-runtime');
      expect(await everything(sb, agentId)).toEqual(before);
      // The same runtime still syncs (idle: nothing changed).
      expect(await sync(from)).toMatchObject({ ok: true, no_changes: true, sequence: 0 });
    });
  }

  for (const layout of ['store', 'alf'] as const) {
    it(`an OpenClaw agent (${layout} layout): refused idle, after an edit, and after a second sync; the right -r syncs the edit`, async () => {
      const { sb, sync } = await sandboxOf('openclaw', layout);
      const agentId = (await sync('openclaw')).agent.alf_agent_id;
      await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing and payroll.\n');
      await sync('openclaw');
      let before = await everything(sb, agentId);
      expect((await refusal(sync('hermes'))).code).toBe('agent_id_drift');
      expect(await everything(sb, agentId)).toEqual(before);
      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\nA new day.\n');
      before = await everything(sb, agentId);
      expect((await refusal(sync('hermes'))).code).toBe('agent_id_drift');
      expect(await everything(sb, agentId)).toEqual(before);
      expect(await sync('openclaw')).toMatchObject({ ok: true, delta: true, sequence: 2, changes: { creates: 1, deletes: 0 } });
    });
  }

  it('an empty OpenClaw workspace synced as hermes is refused, not reported idle', async () => {
    const sb = await makeSandbox('lineage-wrong-r-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const agentId = (await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock })).agent.alf_agent_id;
    const before = await everything(sb, agentId);
    const error = await refusal(syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock }));
    expect(error.code).toBe('agent_id_drift');
    expect(await everything(sb, agentId)).toEqual(before);
  });

  for (const layout of ['store', 'alf'] as const) it(`--change-runtime on a sync that finds nothing to upload still records the runtime (${layout} layout)`, async () => {
    const sb = await makeSandbox('lineage-wrong-r-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const run = (runtime: Runtime, changeRuntime?: boolean) => syncWorkspace({ runtime, workspace: sb.workspace, target, alfHome: sb.alfHome, clock, changeRuntime, layout });
    const agentId = (await run('openclaw')).agent.alf_agent_id;
    expect(await run('hermes', true)).toMatchObject({ no_changes: true, sequence: 0 });
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('hermes');
    expect(await run('hermes')).toMatchObject({ no_changes: true, sequence: 0 });
    expect((await refusal(run('openclaw'))).message).toContain('last synced with -r hermes, not -r openclaw');
  });

  it('--change-runtime on a sync that finds nothing to upload, from an empty Hermes home', async () => {
    const sb = await makeSandbox('lineage-wrong-r-');
    cleanups.push(sb.cleanup);
    await seedStateDb(sb.workspace, [], []);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const run = (runtime: Runtime, changeRuntime?: boolean) => syncWorkspace({ runtime, workspace: sb.workspace, target, alfHome: sb.alfHome, clock, changeRuntime });
    const agentId = (await run('hermes')).agent.alf_agent_id;
    for (let i = 0; i < 2; i++) expect(await run('hermes')).toMatchObject({ no_changes: true, sequence: 0 });
    expect(await run('openclaw', true)).toMatchObject({ no_changes: true, sequence: 0 });
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('openclaw');
    const before = await everything(sb, agentId);
    expect((await refusal(run('hermes'))).message).toContain('last synced with -r openclaw, not -r hermes');
    expect(await everything(sb, agentId)).toEqual(before);
  });

  it('a state an older lineage wrote (no runtime in its TOML): the base\'s source_runtime says it', async () => {
    const { sb, sync } = await sandboxOf('openclaw', 'alf');
    const agentId = (await sync('openclaw')).agent.alf_agent_id;
    const toml = statePaths(sb.alfHome, agentId).toml;
    await fs.writeFile(toml, (await fs.readFile(toml, 'utf8')).replace(/^runtime = .*\n/m, ''));
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBeUndefined();
    const before = await everything(sb, agentId);
    expect((await refusal(sync('hermes'))).message).toContain('last synced with -r openclaw, not -r hermes');
    expect(await everything(sb, agentId)).toEqual(before);
  });

  it('--change-runtime moves the agent on purpose: the sync goes through, and from then on the old -r is the wrong one', async () => {
    const { sb, sync } = await sandboxOf('openclaw');
    const agentId = (await sync('openclaw')).agent.alf_agent_id;
    const moved = await sync('hermes', { changeRuntime: true });
    expect(moved).toMatchObject({ ok: true, delta: true, sequence: 1 });
    expect(moved.changes!.deletes).toBeGreaterThan(0);
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('hermes');
    expect((await refusal(sync('openclaw'))).message).toContain('last synced with -r hermes, not -r openclaw');
  });
  for (const from of ['hermes', 'zeroclaw'] as const) {
    it(`a ${from} database its store stat calls unchanged: refused once the agent was moved, before the idle sync it would be`, async () => {
      const { sb, sync } = await sandboxOf(from);
      const agentId = (await sync(from)).agent.alf_agent_id;
      expect(await sync(from)).toMatchObject({ no_changes: true });
      await sync('openclaw', { changeRuntime: true });
      const before = await everything(sb, agentId);
      expect((await refusal(sync(from))).message).toContain(`last synced with -r openclaw, not -r ${from}`);
      expect(await everything(sb, agentId)).toEqual(before);
    });
  }
  for (const from of ['hermes', 'zeroclaw'] as const) {
    it(`a ${from} store its store stat calls unchanged, the agent moved by a --change-runtime sync that uploaded nothing (same sequence, same base): refused, not idle`, async () => {
      // A store with no memories: another runtime's export of the agent finds nothing to upload either.
      const sb = await makeSandbox('lineage-wrong-r-');
      cleanups.push(sb.cleanup);
      if (from === 'hermes') await seedStateDb(sb.workspace, [], []);
      else await seedBrainDb({ workspace: sb.workspace, agents: [{ id: ZC_AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [] });
      const clock = steppingClock();
      const target = localTarget(sb.dataDir, clock);
      const logged: string[] = [];
      const run = (runtime: Runtime, workspace: string, changeRuntime?: boolean) => syncWorkspace({
        runtime, workspace, runtimeAgent: runtime === 'zeroclaw' ? 'scout' : undefined, target, alfHome: sb.alfHome, clock, changeRuntime, log: (line) => logged.push(line),
      });
      const agentId = (await run(from, sb.workspace)).agent.alf_agent_id;
      // Past the racy window of the files just written (ctime cannot be set back): the next sync's
      // store stat is one a sync trusts (store-stat.ts `fingerprintHolds`).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await run(from, sb.workspace)).toMatchObject({ no_changes: true, sequence: 0 });
      // So it is: the next sync is idle by the store stat, opening nothing.
      logged.length = 0;
      expect(await run(from, sb.workspace)).toMatchObject({ no_changes: true, sequence: 0 });
      expect(logged).toContain('no changes since sequence 0 (the store\'s files are as the last sync saw them)');
      // The agent moved to OpenClaw on purpose, from a workspace that holds only its id: nothing to upload.
      const moved = path.join(sb.root, 'as-openclaw');
      await fs.mkdir(moved);
      await fs.writeFile(path.join(moved, '.alf-agent-id'), `${agentId}\n`);
      expect(await run('openclaw', moved, true)).toMatchObject({ no_changes: true, sequence: 0, agent: { alf_agent_id: agentId } });
      expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('openclaw');
      // The store is as its store stat saw it, at the state's sequence and base: the idle sync it would be is refused.
      const before = await everything(sb, agentId);
      const error = await refusal(run(from, sb.workspace));
      expect(error.code).toBe('agent_id_drift');
      expect(error.message).toContain(`last synced with -r openclaw, not -r ${from}`);
      expect(await everything(sb, agentId)).toEqual(before);
    });
  }
});

describe('the cross-runtime move through a restore', () => {
  for (const from of ['hermes', 'zeroclaw'] as const) {
    it(`a ${from} agent restored into an OpenClaw workspace: its ${from} database, unchanged, is then the wrong one`, async () => {
      const { sb, sync, target, clock } = await sandboxOf(from);
      const agentId = (await sync(from)).agent.alf_agent_id;
      expect(await sync(from)).toMatchObject({ no_changes: true });
      await restoreAgent({ runtime: 'openclaw', target, agentId, workspace: path.join(sb.root, 'as-openclaw'), replace: false, alfHome: sb.alfHome, clock });
      const before = await everything(sb, agentId);
      expect((await refusal(sync(from))).message).toContain(`last synced with -r openclaw, not -r ${from}`);
      expect(await everything(sb, agentId)).toEqual(before);
    });
  }

  it('restore -r hermes -w NEW of an OpenClaw agent, then sync -r hermes -w NEW: no refusal; the OpenClaw workspace is then the wrong one', async () => {
    const { sb, sync, target, clock } = await sandboxOf('openclaw');
    const agentId = (await sync('openclaw')).agent.alf_agent_id;
    const moved = path.join(sb.root, 'as-hermes');
    const restored = await restoreAgent({ runtime: 'hermes', target, agentId, workspace: moved, replace: false, alfHome: sb.alfHome, clock });
    expect(restored).toMatchObject({ applied: true, action: 'initialize', runtime: 'hermes' });
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('hermes');
    const synced = await sync('hermes', { workspace: moved });
    expect(synced).toMatchObject({ ok: true, sequence: 1, delta: true, agent: { alf_agent_id: agentId } });
    expect(synced.changes!.creates).toBeGreaterThan(0);
    expect(await sync('hermes', { workspace: moved })).toMatchObject({ no_changes: true, sequence: 1 });
    const before = await everything(sb, agentId);
    expect((await refusal(sync('openclaw'))).message).toContain('last synced with -r hermes, not -r openclaw');
    expect(await everything(sb, agentId)).toEqual(before);
  });

  it('restore --out (no client state written) into another runtime: its sync needs --change-runtime once', async () => {
    const { sb, sync, target, clock } = await sandboxOf('hermes');
    const agentId = (await sync('hermes')).agent.alf_agent_id;
    const out = path.join(sb.root, 'as-openclaw');
    await restoreAgent({ runtime: 'openclaw', target, agentId, out, replace: false, alfHome: sb.alfHome, clock });
    expect((await refusal(sync('openclaw', { workspace: out }))).message).toContain('last synced with -r hermes, not -r openclaw');
    expect(await sync('openclaw', { workspace: out, changeRuntime: true })).toMatchObject({ ok: true, sequence: 1, agent: { alf_agent_id: agentId } });
    expect(await sync('openclaw', { workspace: out })).toMatchObject({ ok: true, no_changes: true });
  });

  it('a restore with -w into a workspace of the same runtime keeps syncing as that runtime', async () => {
    const { sb, sync, target, clock } = await sandboxOf('openclaw');
    const agentId = (await sync('openclaw')).agent.alf_agent_id;
    const copy = path.join(sb.root, 'copy');
    await restoreAgent({ runtime: 'openclaw', target, agentId, workspace: copy, replace: false, alfHome: sb.alfHome, clock });
    expect((await readClientState(sb.alfHome, agentId))?.runtime).toBe('openclaw');
    expect(await sync('openclaw', { workspace: copy })).toMatchObject({ ok: true, no_changes: true });
  });
});
