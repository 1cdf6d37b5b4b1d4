/**
 * `lineage state compact` with `-w` on a ZeroClaw `brain.db` holding two agents: the agent is named with
 * `-r zeroclaw --runtime-agent ALIAS` as `state export` and `state show` name it (the first alias owns the
 * workspace's `.alf-agent-id`, another its derived id). It had neither option (`unknown option
 * '--runtime-agent'`), so `-w` always meant the `.alf-agent-id` agent. Without the alias the choice is
 * refused as `agent_selection_ambiguous`; `--runtime-agent` is refused for the other runtimes and beside
 * `--agent`. (A ZeroClaw agent keeps the `.alf` base, no store: nothing to compact, `compacted: false`.)
 */
import { describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';
import { syncedTwoZeroclawAgents } from './two-zeroclaw-agents';

describe('lineage state compact --runtime-agent', () => {
  it('compacts the ZeroClaw agent named, refuses an ambiguous choice, and refuses the option where it names nothing', async () => {
    const sb = await makeSandbox('lineage-compact-ra-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const synced = await syncedTwoZeroclawAgents(sb, env);

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
