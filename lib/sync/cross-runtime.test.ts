import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function restoreAsOpenclaw(sb: Awaited<ReturnType<typeof makeSandbox>>, runtime: 'zeroclaw' | 'hermes', runtimeAgent?: string) {
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const synced = await syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: sb.alfHome, clock });
  const out = path.join(sb.root, 'as-openclaw');
  const result = await restoreAgent({ runtime: 'openclaw', target, agentId: synced.agent.alf_agent_id, out, replace: false, alfHome: sb.alfHome, clock });
  return { out, result, files: await readTree(out) };
}

describe('cross-runtime restore into an OpenClaw workspace', () => {
  it('renders a ZeroClaw agent\'s rows as OpenClaw memory files', async () => {
    const sb = await makeSandbox('lineage-xrt-');
    cleanups.push(sb.cleanup);
    const A = 'aaaaaaaa-0000-4000-8000-0000000000aa';
    await seedBrainDb({
      workspace: sb.workspace,
      agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
      rows: [
        { id: '10000000-0000-4000-8000-0000000000a1', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
        { id: '10000000-0000-4000-8000-0000000000a2', key: 'how-to-deploy', content: 'Deploy with make release', category: 'procedure', namespace: 'ops', agent_id: A, created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z' },
      ],
    });
    const { result, files } = await restoreAsOpenclaw(sb, 'zeroclaw', 'scout');
    expect(result.memory_records).toBe(2);
    const text = [...files.values()].map((b) => b.toString('utf8')).join('\n');
    expect(text).toContain('The gateway is 10.20.0.5');
    expect(text).toContain('Deploy with make release');
    expect([...files.keys()].every((p) => p === 'MEMORY.md' || p.startsWith('memory/') || /^[A-Z]+\.md$/.test(p))).toBe(true);
    expect([...files.keys()].some((p) => p.endsWith('brain.db'))).toBe(false);
  });

  it('puts a Hermes agent\'s curated notes into MEMORY.md', async () => {
    const sb = await makeSandbox('lineage-xrt-');
    cleanups.push(sb.cleanup);
    await seedStateDb(sb.workspace, [{ id: 's1', source: 'cli', title: 'Chat', started_at: 1780000000, ended_at: 1780000100 }], [
      { session_id: 's1', role: 'user', content: 'What is our gateway?', timestamp: 1780000001 },
    ]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n' });
    const { out, files } = await restoreAsOpenclaw(sb, 'hermes');
    const memory = await fs.readFile(path.join(out, 'MEMORY.md'), 'utf8');
    expect(memory).toContain('Always run tests first.');
    expect(memory).toContain('The gateway is 10.20.0.5.');
    const others = [...files].filter(([p]) => p !== 'MEMORY.md').map(([, b]) => b.toString('utf8')).join('\n');
    expect(others).toContain('What is our gateway?');
  });
});
