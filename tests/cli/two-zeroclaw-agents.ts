import { expect } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const SCOUT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const NOVA = 'bbbbbbbb-0000-4000-8000-00000000000b';

/**
 * A ZeroClaw workspace whose `brain.db` holds two agents, `scout` (the first: it owns the workspace's
 * `.alf-agent-id`) and `nova` (its id derived from the workspace and the alias), each synced once to the
 * sandbox's data directory with `--runtime-agent` (`lineage sync`, the real bin): the setup of the
 * `state` subcommands' `--runtime-agent` tests. Gives each alias's ALF agent id.
 */
export async function syncedTwoZeroclawAgents(sb: Awaited<ReturnType<typeof makeSandbox>>, env: Record<string, string>): Promise<Record<string, string>> {
  await seedBrainDb({
    workspace: sb.workspace,
    agents: [{ id: SCOUT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: NOVA, alias: 'nova', created_at: '2026-05-02T00:00:00Z' }],
    rows: [
      { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: SCOUT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
      { id: '10000000-0000-4000-8000-000000000002', key: 'billing', content: 'Dana owns billing', agent_id: NOVA, created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z' },
    ],
  });
  const synced: Record<string, string> = {};
  for (const alias of ['scout', 'nova']) {
    const run = await runCli(['sync', '-r', 'zeroclaw', '-w', sb.workspace, '--runtime-agent', alias, '--data', sb.dataDir], env);
    expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 0 });
    synced[alias] = (run.json.agent as { alf_agent_id: string }).alf_agent_id;
  }
  expect(synced.scout).not.toBe(synced.nova);
  return synced;
}
