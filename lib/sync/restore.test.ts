import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { readSyncedFrom } from './synced-marker';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** An agent synced twice (sequences 0 and 1) from a source workspace. */
async function syncedAgent() {
  const sb = await makeSandbox('lineage-restore-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  await sb.write('MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
  const first = await sync();
  await sb.write('MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
  await sync();
  const agentId = first.agent.alf_agent_id;
  const restore = (opts: { workspace?: string; out?: string; atSequence?: number; replace?: boolean }) =>
    restoreAgent({ runtime: 'openclaw', target, agentId, replace: false, alfHome: path.join(sb.root, 'other-home'), clock, ...opts });
  return { sb, agentId, restore, sync };
}

describe('restore into a live workspace: the three decisions', () => {
  it('initialize: an empty workspace is written and marked with what it was synced from', async () => {
    const { sb, agentId, restore } = await syncedAgent();
    const ws = path.join(sb.root, 'fresh');
    await fs.mkdir(ws);
    const out = await restore({ workspace: ws });
    expect(out).toMatchObject({ action: 'initialize', applied: true, sequence: 1 });
    expect(await fs.readFile(path.join(ws, 'MEMORY.md'), 'utf8')).toContain('10.20.0.9');
    expect(await readSyncedFrom(ws)).toMatchObject({ agent_id: agentId, sequence: 1 });
  });

  it('none: a workspace already at that sequence is left alone', async () => {
    const { sb, restore } = await syncedAgent();
    const before = await readTree(sb.workspace);
    const out = await restore({ workspace: sb.workspace });
    expect(out).toMatchObject({ action: 'none', applied: false });
    expect(await readTree(sb.workspace)).toEqual(before);
  });

  it('prompt-update: the ledger moved on, so nothing is written and the changes are listed', async () => {
    const { sb, restore } = await syncedAgent();
    const out = await restore({ workspace: sb.workspace, atSequence: 0 });
    expect(out).toMatchObject({ action: 'prompt-update', applied: false, would_change: ['MEMORY.md'] });
    expect(await fs.readFile(path.join(sb.workspace, 'MEMORY.md'), 'utf8')).toContain('10.20.0.9');
  });

  it('prompt-update with --replace applies the restore', async () => {
    const { sb, restore } = await syncedAgent();
    const out = await restore({ workspace: sb.workspace, atSequence: 0, replace: true });
    expect(out).toMatchObject({ action: 'prompt-update', applied: true, sequence: 0 });
    expect(await fs.readFile(path.join(sb.workspace, 'MEMORY.md'), 'utf8')).toContain('10.20.0.5');
    expect((await readSyncedFrom(sb.workspace))!.sequence).toBe(0);
  });

  it('a live workspace with unsynced memory is left untouched without --replace', async () => {
    const { sb, restore } = await syncedAgent();
    const ws = path.join(sb.root, 'unsynced');
    await fs.mkdir(path.join(ws, 'memory'), { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# Mine\n\n## Local only\nNever synced anywhere.\n');
    await fs.writeFile(path.join(ws, 'memory', 'notes.md'), 'private notes\n');
    const before = await readTree(ws, []);
    const out = await restore({ workspace: ws });
    expect(out).toMatchObject({ action: 'prompt-update', applied: false });
    expect(out.would_change).toContain('MEMORY.md');
    expect(await readTree(ws, [])).toEqual(before);
  });

  it('refuses to restore --out into a non-empty directory, writing nothing', async () => {
    const { sb, restore } = await syncedAgent();
    const out = path.join(sb.root, 'busy');
    await fs.mkdir(out);
    await fs.writeFile(path.join(out, 'keep.txt'), 'x');
    await expect(restore({ out })).rejects.toThrow(/not empty/);
    expect(await fs.readdir(out)).toEqual(['keep.txt']);
  });

  it('the raw channel never carries .alf-synced.json', async () => {
    const { sb, agentId } = await syncedAgent();
    const ledger = openLedger(sb.dataDir);
    const [snapshot, delta] = listEntries({ ledger, agentId });
    const raw = [...(await readSnapshot(await readEntryBytes({ ledger, entry: snapshot! }))).raw.keys()];
    const changed = [...(await readDelta(await readEntryBytes({ ledger, entry: delta! }))).rawChanged.keys()];
    expect(raw).toContain('raw/openclaw/MEMORY.md');
    expect([...raw, ...changed].some((p) => p.endsWith('.alf-synced.json') || p.endsWith('.alf-agent-id'))).toBe(false);
    expect(await readSyncedFrom(sb.workspace)).not.toBeNull();
  });
});

describe('.alf-synced.json with several agents in one workspace', () => {
  it('keeps what each agent was synced from', async () => {
    const { writeSyncedFrom } = await import('./synced-marker');
    const sb = await makeSandbox('lineage-marker-');
    cleanups.push(sb.cleanup);
    await writeSyncedFrom(sb.workspace, { agent_id: 'a', sequence: 3, synced_at: '2026-11-01T00:00:00.000Z' });
    await writeSyncedFrom(sb.workspace, { agent_id: 'b', sequence: 7, synced_at: '2026-11-02T00:00:00.000Z' });
    expect(await readSyncedFrom(sb.workspace)).toMatchObject({ agent_id: 'b', sequence: 7 });
    expect(await readSyncedFrom(sb.workspace, 'a')).toMatchObject({ agent_id: 'a', sequence: 3 });
    expect(await readSyncedFrom(sb.workspace, 'c')).toBeNull();
  });
});
