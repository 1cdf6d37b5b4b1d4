/**
 * What a restore into a live workspace would change, and that it overwrites nothing local
 * silently: not a memory file (prompt-update), and not any other file either — a local SOUL.md,
 * or a file another agent of a shared ZeroClaw workspace synced — even when no memory is there.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb, type SeedRow } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function sandbox(prefix: string) {
  const sb = await makeSandbox(prefix);
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  return { sb, clock, target: localTarget(sb.dataDir, clock) };
}

describe('initialize writes nothing over a local file with other bytes', () => {
  async function openclawAgent() {
    const { sb, clock, target } = await sandbox('lineage-plan-oc-');
    await sb.write('MEMORY.md', '# Memory\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
    await sb.write('SOUL.md', '# Soul\n\nCalm and precise.\n');
    const synced = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const restore = (workspace: string, replace = false) =>
      restoreAgent({ runtime: 'openclaw', target, agentId: synced.agent.alf_agent_id, workspace, replace, alfHome: path.join(sb.root, 'other-home'), clock });
    return { sb, restore };
  }

  it('no memory files, but a local SOUL.md that differs: prompt-update, nothing written; --replace applies it', async () => {
    const { sb, restore } = await openclawAgent();
    const ws = path.join(sb.root, 'local');
    await fs.mkdir(ws);
    await fs.writeFile(path.join(ws, 'SOUL.md'), '# Soul\n\nMy own, never synced.\n');
    const before = await readTree(ws, []);
    const out = await restore(ws);
    expect(out).toMatchObject({ ok: true, action: 'prompt-update', applied: false, would_change: ['MEMORY.md', 'SOUL.md'] });
    expect(await readTree(ws, [])).toEqual(before);

    const replaced = await restore(ws, true);
    expect(replaced).toMatchObject({ action: 'prompt-update', applied: true });
    expect(await fs.readFile(path.join(ws, 'SOUL.md'), 'utf8')).toBe('# Soul\n\nCalm and precise.\n');
  });

  it('a local file with the same bytes is no conflict: initialize', async () => {
    const { sb, restore } = await openclawAgent();
    const ws = path.join(sb.root, 'same');
    await fs.mkdir(ws);
    await fs.writeFile(path.join(ws, 'SOUL.md'), '# Soul\n\nCalm and precise.\n');
    expect(await restore(ws)).toMatchObject({ action: 'initialize', applied: true });
    expect(await fs.readFile(path.join(ws, 'MEMORY.md'), 'utf8')).toContain('10.20.0.9');
  });
});

const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const row = (id: string, key: string, content: string, agent: string): SeedRow => ({
  id, key, content, agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z',
});
const AGENTS = [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: B, alias: 'ledger-bot', created_at: '2026-05-01T00:00:00Z' }];

describe('ZeroClaw: what a restore would change', () => {
  it('names the database where the workspace keeps it, never the schema sidecar', async () => {
    const { sb, clock, target } = await sandbox('lineage-plan-zc-');
    // The third of §4.4's places: memory.db at the workspace root.
    await seedBrainDb({ workspace: sb.workspace, rel: 'memory.db', agents: AGENTS, rows: [row('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', A)] });
    await sb.write('SOUL.md', '# Soul\n');
    const synced = await syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target, alfHome: sb.alfHome, clock });
    const db = new Database(path.join(sb.workspace, 'memory.db'));
    db.prepare("UPDATE memories SET content = 'Edited locally, never synced'").run();
    db.close();
    await fs.rm(path.join(sb.workspace, '.alf-synced.json'));
    const before = await readTree(sb.workspace, []);
    const out = await restoreAgent({ runtime: 'zeroclaw', target, agentId: synced.agent.alf_agent_id, workspace: sb.workspace, runtimeAgent: 'scout', replace: false, alfHome: sb.alfHome, clock });
    expect(out).toMatchObject({ action: 'prompt-update', applied: false, would_change: ['memory.db'] });
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });

  it('initializing the second agent of a shared workspace does not overwrite a shared file that changed since', async () => {
    const { sb, clock, target } = await sandbox('lineage-plan-zc2-');
    await seedBrainDb({ workspace: sb.workspace, agents: AGENTS, rows: [
      row('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', A),
      row('20000000-0000-4000-8000-000000000001', 'plan', 'Agent B plan', B),
    ] });
    await sb.write('SOUL.md', '# Soul\n\nShared by both agents.\n');
    const synced = await syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'ledger-bot', target, alfHome: sb.alfHome, clock });
    // ledger-bot's rows are gone from this copy, and the shared SOUL.md was edited since.
    const db = new Database(path.join(sb.workspace, 'memory', 'brain.db'));
    db.prepare('DELETE FROM memories WHERE agent_id = ?').run(B);
    db.close();
    await sb.write('SOUL.md', '# Soul\n\nEdited by scout afterwards.\n');
    const before = await readTree(sb.workspace, []);
    const out = await restoreAgent({ runtime: 'zeroclaw', target, agentId: synced.agent.alf_agent_id, workspace: sb.workspace, runtimeAgent: 'ledger-bot', replace: false, alfHome: sb.alfHome, clock });
    expect(out).toMatchObject({ action: 'prompt-update', applied: false, would_change: ['SOUL.md', 'memory/brain.db'] });
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });
});

describe('Hermes: what a restore would change', () => {
  it('names state.db and the memory files, not the live config.yaml it keeps', async () => {
    const { sb, clock, target } = await sandbox('lineage-plan-hermes-');
    await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }],
      [{ session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n', 'memories/USER.md': 'Name: Dana\n', 'config.yaml': 'model: a\napi_key: sk-secret\n' });
    const synced = await syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nA local note, never synced.\n', 'config.yaml': 'model: b\napi_key: sk-secret\n' });
    await fs.rm(path.join(sb.workspace, '.alf-synced.json'));
    const before = await readTree(sb.workspace, []);
    const out = await restoreAgent({ runtime: 'hermes', target, agentId: synced.agent.alf_agent_id, workspace: sb.workspace, replace: false, alfHome: sb.alfHome, clock });
    expect(out).toMatchObject({ action: 'prompt-update', applied: false, would_change: ['memories/MEMORY.md', 'state.db'] });
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });
});
