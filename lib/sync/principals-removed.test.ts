import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { syntheticAgentBytes } from '@/lib/core/archive/testing/fixtures';
import type { AlfDelta } from '@/lib/core/archive/types';
import type { JsonObject } from '@/lib/core/json';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { rebuildAt, restoreAgent } from './restore';
import { buildDelta, syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/**
 * CONTRACT §3.2: the layers in a delta are full documents; all principals removed ⇒
 * `{"principals": []}`. A workspace whose principal source goes (OpenClaw's USER.md, Hermes'
 * memories/USER.md) must say so, or the head keeps the old principal for ever.
 */
const CASES = [
  { name: 'openclaw (store)', runtime: 'openclaw', layout: 'store', user: 'USER.md' },
  { name: 'openclaw (.alf)', runtime: 'openclaw', layout: 'alf', user: 'USER.md' },
  { name: 'hermes', runtime: 'hermes', layout: undefined, user: 'memories/USER.md' },
] as const satisfies readonly { name: string; runtime: Runtime; layout: StateLayout | undefined; user: string }[];

async function workspaceOf(c: (typeof CASES)[number], withUser: boolean) {
  const sb = await makeSandbox('lineage-principals-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  if (c.runtime === 'hermes') {
    await seedStateDb(sb.workspace, [{ id: 's1', source: 'cli', title: 'Chat', started_at: 1780000000, ended_at: 1780000100 }], [
      { session_id: 's1', role: 'user', content: 'What is our gateway?', timestamp: 1780000001 },
    ]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Run tests first.\n' });
  } else {
    await sb.write('MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
  }
  if (withUser) await sb.write(c.user, 'Dana, on call Mondays.\n');
  const sync = () => syncWorkspace({ runtime: c.runtime, workspace: sb.workspace, target, alfHome: sb.alfHome, clock, layout: c.layout });
  const entries = (agentId: string) => listEntries({ ledger: openLedger(sb.dataDir), agentId });
  const lastDelta = async (agentId: string): Promise<AlfDelta> => {
    const all = entries(agentId);
    const last = all[all.length - 1]!;
    expect(last.kind).toBe('delta');
    return readDelta(await readEntryBytes({ ledger: openLedger(sb.dataDir), entry: last }));
  };
  return { sb, clock, target, sync, entries, lastDelta };
}

describe.each(CASES)('$name: the principal source removed', (c) => {
  it('the delta carries {"principals": []}; the head has no principal, the earlier sequence still has it; the next sync is idle', async () => {
    const { sb, clock, target, sync, entries, lastDelta } = await workspaceOf(c, true);
    const first = await sync();
    const agentId = first.agent.alf_agent_id;
    const firstPrincipals = (await rebuildAt({ target, agentId, now: clock() })).snapshot.layers.principals;
    expect(firstPrincipals).toMatchObject({ principals: [{ principal_type: 'human' }] });
    const human = ((firstPrincipals!.principals as JsonObject[])[0]!).id;

    await sb.remove(c.user);
    const removed = await sync();
    expect(removed).toMatchObject({ sequence: 1, delta: true, raw: { changed: 0, deleted: 1 } });
    expect(removed.changes).toEqual({ creates: 0, updates: 0, deletes: 0, principals: { creates: 0, updates: 0, deletes: 1 } });
    const delta = await lastDelta(agentId);
    expect(delta.layers.principals).toEqual({ principals: [] });
    // The principal it removed named (CONTRACT §3.2 `changed_ids`).
    expect(delta.manifest.changes).toEqual({ principals: { file: 'principals.json', changed_ids: [human] }, raw: { deleted: [`raw/${c.runtime}/${c.user}`] } });
    // Identity is never deleted by a delta, credentials were never read: neither is sent.
    expect(delta.layers.identity).toBeUndefined();
    expect(delta.layers.credentials).toBeUndefined();

    // The head (the restore fold at the latest sequence) has none; sequence 0 still has it.
    const head = await rebuildAt({ target, agentId, now: clock() });
    expect(head.sequence).toBe(1);
    expect(head.snapshot.layers.principals).toEqual({ principals: [] });
    const before = await rebuildAt({ target, agentId, atSequence: 0, now: clock() });
    expect(before.snapshot.layers.principals).toMatchObject({ principals: [{ principal_type: 'human', profile: { prose: { user_profile: 'Dana, on call Mondays.\n' } } }] });

    // A restore at the head writes no USER.md; one at sequence 0 writes it back.
    const restore = async (atSequence: number) => {
      const out = path.join(sb.root, `restored-${atSequence}`);
      await restoreAgent({ runtime: c.runtime, target, agentId, atSequence, out, replace: false, alfHome: path.join(sb.root, `home-${atSequence}`), clock });
      return fs.readFile(path.join(out, c.user), 'utf8').catch(() => null);
    };
    expect(await restore(1)).toBeNull();
    expect(await restore(0)).toBe('Dana, on call Mondays.\n');

    // Idempotent: the next sync is idle, no second empty principals delta.
    expect(await sync()).toMatchObject({ sequence: 1, no_changes: true });
    expect(entries(agentId)).toHaveLength(2);

    // The source back: the principal is sent again, as a full document.
    await sb.write(c.user, 'Dana, on call Tuesdays.\n');
    expect(await sync()).toMatchObject({ sequence: 2, delta: true });
    expect((await lastDelta(agentId)).layers.principals).toMatchObject({ principals: [{ profile: { prose: { user_profile: 'Dana, on call Tuesdays.\n' } } }] });
  });

  it('a workspace with no principal source from the start sends no principals document at all', async () => {
    const { sb, sync, lastDelta } = await workspaceOf(c, false);
    const first = await sync();
    if (c.runtime === 'hermes') await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Run tests first.\n§\nThe gateway is 10.20.0.9.\n' });
    else await sb.write('MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
    expect(await sync()).toMatchObject({ sequence: 1, delta: true });
    const delta = await lastDelta(first.agent.alf_agent_id);
    expect(delta.layers.principals).toBeUndefined();
    expect(delta.manifest.changes).not.toHaveProperty('principals');
  });
});

describe('buildDelta: what a delta never says of a layer the export does not hold', () => {
  const principals = { principals: [{ id: '0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6b', principal_type: 'human', agent_id: null }] };
  const credentials = { credentials: [{ id: '1b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6b', service: 'openai' }] };
  const identity = { id: '2b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6b', version: 1 };
  const build = (runtime: Runtime, base: AlfDelta['layers'], current: AlfDelta['layers'] = {}) => buildDelta({
    base: { raw: new Map(), layers: base }, current: { raw: new Map(), layers: current, records: [] },
    baseSequence: 3, runtime, agentId: '3b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6b', now: new Date('2026-11-01T09:00:00Z'),
  });

  it('principals gone from a runtime that reads them: {"principals": []}', () => {
    expect(build('openclaw', { principals })?.layers).toEqual({ principals: { principals: [] } });
    expect(build('hermes', { principals })?.layers).toEqual({ principals: { principals: [] } });
  });

  it('a base whose principals were already none (an empty list, or no document) gives no delta', () => {
    expect(build('openclaw', { principals: { principals: [] } })).toBeNull();
    expect(build('openclaw', {})).toBeNull();
  });

  it('ZeroClaw reads no principals: a base holding some (a reference client\'s) is not wiped', () => {
    expect(build('zeroclaw', { principals })).toBeNull();
  });

  it('no runtime reads credentials, and identity is never deleted: neither is sent when the export has none', () => {
    for (const runtime of ['openclaw', 'hermes', 'zeroclaw'] as const) expect(build(runtime, { credentials, identity })).toBeNull();
  });
});

/** The reference's synthetic agent (identity, 3 principals, 4 credentials; raw/openclaw/.keep). */
const AGENT = 'c538c13b-48f3-4cd1-befd-0feb12c8fef9';

describe.each(['openclaw', 'hermes', 'zeroclaw'] as const)('%s: a reference-made snapshot restored as the base, then a sync', (runtime) => {
  it('never sends a credentials document (the client never read them) nor deletes the identity: the head keeps both', async () => {
    const sb = await makeSandbox('lineage-principals-reference-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    await target.ensureAgent({ id: AGENT, name: 'Agent Name', runtime: 'openclaw' });
    await target.putSnapshot(AGENT, syntheticAgentBytes());
    const runtimeAgent = runtime === 'zeroclaw' ? 'Agent Name' : undefined;
    const home = path.join(sb.root, 'home');
    await restoreAgent({ runtime, target, agentId: AGENT, workspace: sb.workspace, runtimeAgent, replace: false, alfHome: home, clock });
    const reference = await readSnapshot(syntheticAgentBytes());
    // A change of the workspace's own, so the sync uploads a delta.
    const changed = runtime === 'hermes' ? 'memories/MEMORY.md' : 'memory/2026-11-01.md';
    await sb.write(changed, '# 2026-11-01\n\n## New\nA new note.\n');
    const out = await syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: home, clock });
    expect(out).toMatchObject({ sequence: 1, delta: true });
    const ledger = openLedger(sb.dataDir);
    const entries = listEntries({ ledger, agentId: AGENT });
    const delta = await readDelta(await readEntryBytes({ ledger, entry: entries[entries.length - 1]! }));
    expect([...delta.rawChanged.keys()]).toContain(`raw/${runtime}/${changed}`);
    expect(delta.layers.credentials).toBeUndefined();
    expect(delta.layers.identity).toBeUndefined();
    const head = (await rebuildAt({ target, agentId: AGENT, now: clock() })).snapshot.layers;
    expect(head.credentials).toEqual(reference.layers.credentials);
    expect(head.identity).toEqual(reference.layers.identity);
    // Principals: OpenClaw and Hermes read them from the workspace, which holds none of the three
    // (the restore said so): the workspace's "none" is sent. ZeroClaw reads none: they are kept.
    if (runtime === 'zeroclaw') {
      expect(delta.layers.principals).toBeUndefined();
      expect(out.changes).not.toHaveProperty('principals');
      expect(head.principals).toEqual(reference.layers.principals);
    } else {
      expect(delta.layers.principals).toEqual({ principals: [] });
      // The sync's JSON says so: the three principals deleted (by id).
      expect(out.changes).toMatchObject({ principals: { creates: 0, updates: 0, deletes: 3 } });
      expect(head.principals).toEqual({ principals: [] });
    }
  });
});
