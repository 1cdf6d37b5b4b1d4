/**
 * `lineage sync` with the wrong `-r` through the real bin: refused with `agent_id_drift` and
 * nothing written (the ledger's entries, the client state's bytes); the README's cross-runtime
 * move (`restore -r hermes -w NEW`, then `sync -r hermes -w NEW`) still goes through, and so does
 * `--change-runtime`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEntries, openLedger } from '@/lib/ledger';
import { readTree } from '@/lib/sync/testing/workspace';
import { runCli, runCliText } from './run-cli';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-wrong-r-cli-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

describe('lineage sync with the wrong -r', () => {
  it('is refused with nothing written; the restore into a Hermes home and its sync move the agent; --change-runtime is the other way', async () => {
    const env = { ALF_HOME: path.join(tmp, 'home') };
    const data = path.join(tmp, 'data');
    const ws = path.join(tmp, 'openclaw');
    await fs.mkdir(path.join(ws, 'memory'), { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Owner\nDana owns billing.\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    await fs.writeFile(path.join(ws, 'memory', '2026-11-01.md'), '# 2026-11-01\n\nShipped the release.\n');
    const synced = await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env);
    expect(synced.json).toMatchObject({ ok: true, sequence: 0 });
    const agentId = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;

    const stateDir = path.join(tmp, 'home', '.alf', 'state');
    const entries = () => listEntries({ ledger: openLedger(data), agentId }).map((e) => JSON.stringify(e));
    const before = { entries: entries(), state: await readTree(stateDir, []), workspace: await readTree(ws, []) };
    const wrong = await runCli(['sync', '-r', 'hermes', '-w', ws, '--data', data], env);
    expect(wrong.code).toBe(1);
    expect(wrong.json).toMatchObject({ ok: false, code: 'agent_id_drift' });
    expect(wrong.json.error).toContain(`agent ${agentId}`);
    expect(wrong.json.error).toContain('last synced with -r openclaw, not -r hermes');
    expect(wrong.json.hint).toContain(`lineage sync -r openclaw -w ${ws}`);
    expect({ entries: entries(), state: await readTree(stateDir, []), workspace: await readTree(ws, []) }).toEqual(before);

    // The README's cross-runtime move: restore into a Hermes home, then sync it as Hermes.
    const home = path.join(tmp, 'hermes');
    const restored = await runCli(['restore', '-r', 'hermes', '--agent', agentId, '-w', home, '--data', data], env);
    expect(restored.json).toMatchObject({ ok: true, applied: true, runtime: 'hermes' });
    const moved = await runCli(['sync', '-r', 'hermes', '-w', home, '--data', data], env);
    expect(moved.code).toBe(0);
    expect(moved.json).toMatchObject({ ok: true, sequence: 1, delta: true, agent: { alf_agent_id: agentId } });
    expect((await runCli(['sync', '-r', 'hermes', '-w', home, '--data', data], env)).json).toMatchObject({ ok: true, no_changes: true });

    // The OpenClaw workspace is now the wrong one; --change-runtime takes the agent back on purpose.
    const back = await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env);
    expect(back.json).toMatchObject({ ok: false, code: 'agent_id_drift' });
    expect(back.json.error).toContain('last synced with -r hermes, not -r openclaw');
    const changed = await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data, '--change-runtime'], env);
    expect(changed.json).toMatchObject({ ok: true, sequence: 2, delta: true });
    expect((await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env)).json).toMatchObject({ ok: true, no_changes: true });
  });

  it('sync --help documents --change-runtime', async () => {
    const help = await runCliText(['sync', '--help']);
    expect(help.stdout).toContain('--change-runtime');
  });
});
