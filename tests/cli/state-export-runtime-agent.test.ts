/**
 * `lineage state export` / `state show` with `-w` on a ZeroClaw `brain.db` holding two agents: the
 * agent is named with `--runtime-agent` as `sync`, `restore` and `export` name it (the first alias owns
 * the workspace's `.alf-agent-id`, another its derived id); without it the choice is refused as
 * `agent_selection_ambiguous` (it silently took the `.alf-agent-id` agent: `unknown option
 * '--runtime-agent'`). `--runtime-agent` is refused for the other runtimes, and beside `--agent`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';
import { syncedTwoZeroclawAgents } from './two-zeroclaw-agents';

describe('lineage state export --runtime-agent', () => {
  it('exports the ZeroClaw agent named, refuses an ambiguous choice, and refuses the option where it names nothing', async () => {
    const sb = await makeSandbox('lineage-state-ra-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const synced = await syncedTwoZeroclawAgents(sb, env);
      const stateDir = path.join(sb.alfHome, '.alf', 'state');
      const files = () => fs.readdirSync(stateDir).sort();
      const before = files();

      const exportOf = (...more: string[]) => runCli(['state', 'export', '-w', sb.workspace, ...more], env);
      for (const alias of ['nova', 'scout']) {
        const exported = await exportOf('-r', 'zeroclaw', '--runtime-agent', alias);
        expect(exported.json, exported.stderr).toMatchObject({ ok: true, agent_id: synced[alias], sequence: 0, snapshot_path: path.join(stateDir, `${synced[alias]}-snapshot.alf`) });
        expect(fs.existsSync(exported.json.snapshot_path as string)).toBe(true);
        const shown = await runCli(['state', 'show', '-r', 'zeroclaw', '-w', sb.workspace, '--runtime-agent', alias], env);
        expect(shown.json).toMatchObject({ ok: true, agent_id: synced[alias], last_synced_sequence: 0 });
      }
      expect(files()).toEqual(before);

      const ambiguous = await exportOf('-r', 'zeroclaw');
      expect([ambiguous.code, ambiguous.json.code]).toEqual([1, 'agent_selection_ambiguous']);
      expect(ambiguous.json.error).toMatch(/holds 2 agents \("scout", "nova"\); choose one with --runtime-agent ALIAS$/);
      const unknown = await exportOf('-r', 'zeroclaw', '--runtime-agent', 'vega');
      expect(unknown.json).toMatchObject({ ok: false, code: 'agent_not_found' });
      expect(unknown.json.error).toMatch(/no ZeroClaw agent with alias "vega"/);
      expect(await exportOf('--runtime-agent', 'nova')).toMatchObject({ code: 1, json: {
        ok: false, code: 'invalid_argument', error: '--runtime-agent names an agent inside a ZeroClaw brain.db; an OpenClaw workspace holds one agent',
      } });
      expect((await exportOf('-r', 'hermes', '--runtime-agent', 'nova')).json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(/a Hermes home holds one agent$/) });
      const both = await runCli(['state', 'export', '-r', 'zeroclaw', '--agent', synced.nova!, '--runtime-agent', 'nova'], env);
      expect(both.json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(/^--runtime-agent names an agent of the workspace's brain\.db/) });
      expect(files()).toEqual(before);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
