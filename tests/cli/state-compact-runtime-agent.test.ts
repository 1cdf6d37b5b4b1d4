/**
 * `lineage state compact` with `-w` on a ZeroClaw `brain.db` holding two agents: the agent is named with
 * `-r zeroclaw --runtime-agent ALIAS` as `state export` and `state show` name it (the first alias owns the
 * workspace's `.alf-agent-id`, another its derived id). It had neither option (`unknown option
 * '--runtime-agent'`), so `-w` always meant the `.alf-agent-id` agent. Without the alias the choice is
 * refused as `agent_selection_ambiguous`; `--runtime-agent` is refused for the other runtimes and beside
 * `--agent`. (A ZeroClaw agent keeps the `.alf` base, no store: nothing to compact, `compacted: false`.)
 */
import { describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const SCOUT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const NOVA = 'bbbbbbbb-0000-4000-8000-00000000000b';

describe('lineage state compact --runtime-agent', () => {
  it('compacts the ZeroClaw agent named, refuses an ambiguous choice, and refuses the option where it names nothing', async () => {
    const sb = await makeSandbox('lineage-compact-ra-');
    try {
      await seedBrainDb({
        workspace: sb.workspace,
        agents: [{ id: SCOUT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: NOVA, alias: 'nova', created_at: '2026-05-02T00:00:00Z' }],
        rows: [
          { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: SCOUT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
          { id: '10000000-0000-4000-8000-000000000002', key: 'billing', content: 'Dana owns billing', agent_id: NOVA, created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z' },
        ],
      });
      const env = { ALF_HOME: sb.alfHome };
      const synced: Record<string, string> = {};
      for (const alias of ['scout', 'nova']) {
        const run = await runCli(['sync', '-r', 'zeroclaw', '-w', sb.workspace, '--runtime-agent', alias, '--data', sb.dataDir], env);
        expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 0 });
        synced[alias] = (run.json.agent as { alf_agent_id: string }).alf_agent_id;
      }
      expect(synced.scout).not.toBe(synced.nova);

      const compactOf = (...more: string[]) => runCli(['state', 'compact', '-w', sb.workspace, ...more], env);
      for (const alias of ['nova', 'scout']) {
        const compacted = await compactOf('-r', 'zeroclaw', '--runtime-agent', alias, '--force');
        expect(compacted.json, compacted.stderr).toEqual({ ok: true, agent_id: synced[alias], compacted: false, sequence: null, generation: null, log_bytes_before: null, log_bytes: null });
      }
      // Without -r, as before: the workspace's .alf-agent-id, the first alias's.
      expect((await compactOf()).json).toMatchObject({ ok: true, agent_id: synced.scout });

      const ambiguous = await compactOf('-r', 'zeroclaw');
      expect([ambiguous.code, ambiguous.json.code]).toEqual([1, 'agent_selection_ambiguous']);
      expect(ambiguous.json.error).toMatch(/holds 2 agents \("scout", "nova"\); choose one with --runtime-agent ALIAS$/);
      const unknown = await compactOf('-r', 'zeroclaw', '--runtime-agent', 'vega');
      expect(unknown.json).toMatchObject({ ok: false, code: 'agent_not_found' });
      expect(unknown.json.error).toMatch(/no ZeroClaw agent with alias "vega"/);
      expect(await compactOf('--runtime-agent', 'nova')).toMatchObject({ code: 1, json: {
        ok: false, code: 'invalid_argument', error: '--runtime-agent names an agent inside a ZeroClaw brain.db; an OpenClaw workspace holds one agent',
      } });
      const both = await runCli(['state', 'compact', '-r', 'zeroclaw', '--agent', synced.nova!, '--runtime-agent', 'nova'], env);
      expect(both.json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(/^--runtime-agent names an agent of the workspace's brain\.db/) });
      expect(both.json.hint).toMatch(/lineage state compact -r zeroclaw -w WORKSPACE --runtime-agent ALIAS/);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
