import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { readSnapshot } from '@/lib/core/archive';
import { canonicalJson } from '@/lib/core/json';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** Writes a workspace file with a given mtime (to the microsecond, as Node sets it). */
async function put(ws: string, rel: string, text: string, mtime: string) {
  const file = path.join(ws, ...rel.split('/'));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  const at = new Date(mtime);
  await fs.utimes(file, at, at);
}

/** A workspace of each runtime holding the files its identity and principal layers are read from (none for ZeroClaw). */
async function seedWorkspace(runtime: Runtime, ws: string): Promise<string | undefined> {
  if (runtime === 'openclaw') {
    await put(ws, 'SOUL.md', '# Soul\nCalm and careful.\n', '2026-04-02T08:00:00.250Z');
    await put(ws, 'IDENTITY.md', 'Name: Atlas\n', '2026-04-03T09:30:00Z');
    await put(ws, 'AGENTS.md', '# Agents\nBe brief.\n', '2026-04-05T11:45:10.5Z');
    await put(ws, 'TOOLS.md', 'Use make.\n', '2026-04-01T00:00:00Z');
    await put(ws, 'USER.md', '# User\nDana, on call Mondays.\n', '2026-03-20T16:20:00.125Z');
    await put(ws, 'MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.5.\n', '2026-04-06T10:00:00Z');
    return undefined;
  }
  if (runtime === 'hermes') {
    await seedStateDb(ws, [{ id: 's1', source: 'cli', title: 'Chat', started_at: 1780000000, ended_at: 1780000100 }], [
      { session_id: 's1', role: 'user', content: 'What is our gateway?', timestamp: 1780000001 },
    ]);
    await put(ws, 'SOUL.md', 'I am calm.\n', '2026-04-02T08:00:00.75Z');
    await put(ws, 'memories/USER.md', 'Dana likes tea.\n', '2026-03-20T16:20:00Z');
    await put(ws, 'memories/MEMORY.md', 'Run tests first.\n', '2026-04-06T10:00:00Z');
    return undefined;
  }
  const A = 'aaaaaaaa-0000-4000-8000-0000000000aa';
  await seedBrainDb({
    workspace: ws,
    agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
    rows: [{ id: '10000000-0000-4000-8000-0000000000a1', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
  });
  await put(ws, 'SOUL.md', 'Scout soul.\n', '2026-04-02T08:00:00Z');
  await put(ws, 'USER.md', 'Dana.\n', '2026-03-20T16:20:00Z');
  return 'scout';
}

/** The identity and principal layers of an agent's latest snapshot in a data directory, as canonical JSON. */
async function headLayers(dataDir: string, agentId: string) {
  const ledger = openLedger(dataDir);
  const snapshots = listEntries({ ledger, agentId }).filter((e) => e.kind === 'snapshot');
  const snapshot = await readSnapshot(await readEntryBytes({ ledger, entry: snapshots[snapshots.length - 1]! }));
  return { identity: canonicalJson(snapshot.layers.identity ?? null), principals: canonicalJson(snapshot.layers.principals ?? null) };
}

describe.each(['openclaw', 'hermes', 'zeroclaw'] as const)('%s: what a restored workspace syncs back of the identity and principal layers', (runtime) => {
  it('an ordinary sync after the restore is idle, and a first snapshot made from it holds the very same layers', async () => {
    const sb = await makeSandbox('lineage-restore-layers-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const runtimeAgent = await seedWorkspace(runtime, sb.workspace);
    const first = await syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: sb.alfHome, clock });
    const agentId = first.agent.alf_agent_id;
    const before = await headLayers(sb.dataDir, agentId);
    if (runtime !== 'zeroclaw') {
      expect(before.identity).not.toBe('null');
      expect(before.principals).not.toBe('null');
    }

    // Restored into an empty workspace by another machine (its own ALF_HOME)...
    const restored = path.join(sb.root, 'restored');
    await fs.mkdir(restored);
    const home2 = path.join(sb.root, 'home-2');
    const out = await restoreAgent({ runtime, target, agentId, workspace: restored, runtimeAgent, replace: false, alfHome: home2, clock });
    expect(out).toMatchObject({ action: 'initialize', applied: true, sequence: 0 });
    // Everything of the layers is back in the workspace's files: nothing to warn of.
    expect(out.warnings).toBeUndefined();

    // ...whose next sync finds nothing changed: no principals "update" carrying the restore time.
    const again = await syncWorkspace({ runtime, workspace: restored, runtimeAgent, target, alfHome: home2, clock });
    expect(again).toMatchObject({ no_changes: true, sequence: 0 });

    // A forced first sync from a fresh ALF_HOME makes a head with the same layers...
    const forced = await syncWorkspace({ runtime, workspace: restored, runtimeAgent, target, alfHome: path.join(sb.root, 'home-3'), clock, forceFirstSync: true });
    expect(forced).toMatchObject({ delta: false, sequence: 1 });
    expect(await headLayers(sb.dataDir, agentId)).toEqual(before);

    // ...and so does a first sync to a new target.
    const otherData = path.join(sb.root, 'data-2');
    await syncWorkspace({ runtime, workspace: restored, runtimeAgent, target: localTarget(otherData, clock), alfHome: path.join(sb.root, 'home-4'), clock });
    expect(await headLayers(otherData, agentId)).toEqual(before);
  });
});
