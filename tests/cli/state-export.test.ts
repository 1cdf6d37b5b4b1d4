import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateArchive } from '@/lib/core/validate';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

/**
 * `lineage state export`: after syncs with the store layout (which keeps no `.alf` once it
 * uploads a delta), it writes `$ALF_HOME/.alf/state/{agent}-snapshot.alf` — a valid base at the
 * TOML's sequence — for the reference CLI; bad input is refused in words and changes nothing.
 */
describe('lineage state export', () => {
  it('writes the base .alf the reference CLI reads, at the synced sequence; the next sync goes on from the store', async () => {
    const sb = await makeSandbox('lineage-state-export-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const sync = () => runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      expect((await sync()).json).toMatchObject({ ok: true, sequence: 0 });
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      const synced = await sync();
      expect(synced.json).toMatchObject({ ok: true, sequence: 1 });
      const agentId = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;
      const alf = path.join(sb.alfHome, '.alf', 'state', `${agentId}-snapshot.alf`);
      await expect(fs.stat(alf)).rejects.toThrow();
      // The sync's `snapshot_path` (a key the reference's sync JSON has, CONTRACT §2.3) is where that
      // base is kept: with the store layout no file is there until `state export` writes it (README).
      expect(synced.json.snapshot_path).toBe(alf);

      const exported = await runCli(['state', 'export', '-w', sb.workspace], env);
      expect(exported.code).toBe(0);
      expect(exported.json).toMatchObject({ ok: true, agent_id: agentId, sequence: 1, snapshot_path: alf, from: 'store' });
      const bytes = new Uint8Array(await fs.readFile(alf));
      expect(exported.json.bytes).toBe(bytes.byteLength);
      expect((await validateArchive(bytes)).errors).toEqual([]);
      // Again: the same bytes (nothing changed meanwhile).
      expect((await runCli(['state', 'export', '--agent', agentId], env)).json).toMatchObject({ ok: true, sequence: 1 });
      expect(Buffer.from(await fs.readFile(alf)).equals(Buffer.from(bytes))).toBe(true);

      // Our next syncs go on from the store: idle, then a delta (which removes the `.alf`, no longer the base).
      expect((await sync()).json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer and the exporter.\n');
      expect((await sync()).json).toMatchObject({ ok: true, sequence: 2, changes: { creates: 0, updates: 1, deletes: 0 } });
      await expect(fs.stat(alf)).rejects.toThrow();
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('lineage state show: the sequence, the layout and the target the state follows, read only; a sync to another data dir is a first sync there', async () => {
    const sb = await makeSandbox('lineage-state-show-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const other = path.join(sb.root, 'other-data');
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const show = async () => (await runCli(['state', 'show', '-w', sb.workspace], env)).json;
      // Never synced: nothing there, and nothing is written by asking (not even the agent id).
      expect((await runCli(['state', 'show', '--agent', '5a5a5a5a-3333-4a2b-8c3d-0000000000c9'], env)).json)
        .toMatchObject({ ok: true, last_synced_sequence: null, layout: null, target: null });
      const first = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
      const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
      expect(await show()).toEqual({
        ok: true, agent_id: agentId, state_dir: path.join(sb.alfHome, '.alf', 'state'),
        last_synced_sequence: 0, last_synced_at: expect.any(String), layout: 'store', target: path.resolve(sb.dataDir),
      });
      const toOther = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', other], env);
      expect(toOther.json).toMatchObject({ ok: true, sequence: 0, no_changes: false });
      expect(toOther.stderr).toContain(`${path.resolve(other)} has nothing of agent ${agentId}: a first sync there`);
      expect(await show()).toMatchObject({ last_synced_sequence: 0, target: path.resolve(other) });
      const back = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
      expect(back.code).toBe(1);
      expect(back.json).toMatchObject({ ok: false, code: 'target_changed', hint: expect.stringContaining('lineage sync --rebase') });
      expect(await show()).toMatchObject({ target: path.resolve(other) });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('refuses what it cannot export, in words, writing nothing', async () => {
    const sb = await makeSandbox('lineage-state-export-bad-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const notUuid = await runCli(['state', 'export', '--agent', 'not-a-uuid'], env);
      expect(notUuid.code).toBe(1);
      expect(notUuid.json).toMatchObject({ ok: false, code: 'invalid_argument' });
      const neither = await runCli(['state', 'export'], env);
      expect(neither.json).toMatchObject({ ok: false, code: 'invalid_argument' });
      const none = await runCli(['state', 'export', '--agent', '6f1c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b'], env);
      expect(none.code).toBe(1);
      expect(none.json).toMatchObject({ ok: false, code: 'state_missing' });
      expect(none.json.hint).toMatch(/lineage sync/);
      await expect(fs.readdir(path.join(sb.alfHome, '.alf', 'state'))).rejects.toThrow();
    } finally {
      await sb.cleanup();
    }
  }, 60_000);
});
