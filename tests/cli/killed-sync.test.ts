import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CrashPoint } from '@/lib/sync/crash-points';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

/** `lineage <args>` killed with SIGKILL at `point` (LINEAGE_CRASH_AT): how it ended. */
function killedCli(args: string[], env: Record<string, string>, point: CrashPoint): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env, LINEAGE_CRASH_AT: point }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

const POINTS: CrashPoint[] = ['sent-recorded', 'uploaded', 'log-written', 'files-written', 'state-written'];

/**
 * A sync killed at each step of its state write (the upload recorded, accepted, the store's log
 * flushed, its index renamed into place, the TOML written): the next sync, not killed, leaves the
 * ledger and the client state as if the killed one had finished or never run — every sequence
 * restores byte-exact, nothing is uploaded twice, and an idle sync after it finds nothing to do.
 */
describe.each(POINTS)('a sync killed at %s', (point) => {
  it('is recovered by the next sync: first sync and delta sync', () => killedAndRecovered(point, {}), 120_000);
});

/** The same while the store compacts its log at every sync that leaves dead bytes (a new generation each time). */
describe.each(['log-written', 'files-written'] as const)('a compacting sync killed at %s', (point) => {
  it('is recovered by the next sync: first sync and delta sync', () => killedAndRecovered(point, { LINEAGE_STORE_COMPACT_BYTES: '0' }), 120_000);
});

async function killedAndRecovered(point: CrashPoint, extraEnv: Record<string, string>): Promise<void> {
  {
    const sb = await makeSandbox('lineage-killed-');
    try {
      const env = { ALF_HOME: sb.alfHome, ...extraEnv };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      const restoreTree = async (agentId: string, seq: number) => {
        const out = path.join(sb.root, `restore-${seq}-${Math.random().toString(36).slice(2)}`);
        const run = await runCli(['restore', '--agent', agentId, '--at-sequence', String(seq), '--out', out, '--data', sb.dataDir], env);
        expect(run.json, JSON.stringify(run.json)).toMatchObject({ ok: true });
        return readTree(out);
      };
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      const states: Map<string, Buffer>[] = [];

      // A first sync killed there, then synced again.
      expect(await killedCli(args, env, point)).toMatchObject({ signal: 'SIGKILL' });
      const first = await runCli(args, env);
      expect(first.json, JSON.stringify(first.json)).toMatchObject({ ok: true, sequence: 0 });
      const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
      states.push(await readTree(sb.workspace));

      // A delta sync killed there, then synced again.
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer, and the exporter.\n');
      expect(await killedCli(args, env, point)).toMatchObject({ signal: 'SIGKILL' });
      const again = await runCli(args, env);
      expect(again.json, JSON.stringify(again.json)).toMatchObject({ ok: true, sequence: 1 });
      states.push(await readTree(sb.workspace));

      // And the history goes on from there.
      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
      states.push(await readTree(sb.workspace));
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, no_changes: true });
      for (let seq = 0; seq < states.length; seq++) expect(await restoreTree(agentId, seq)).toEqual(states[seq]);
      // The state directory holds the state (the store: its index and one log), no temporary file
      // left by a kill, no log of another generation, no `.alf` it no longer is.
      const state = (await fs.readdir(path.join(sb.alfHome, '.alf', 'state'))).sort();
      expect(state).toHaveLength(3);
      expect(state[0]).toMatch(new RegExp(`^${agentId}-state-\\d+\\.log$`));
      expect(state.slice(1)).toEqual([`${agentId}-state.idx`, `${agentId}.toml`]);
      // Compacting, the log is a later generation than the first sync's.
      if (extraEnv.LINEAGE_STORE_COMPACT_BYTES !== undefined) expect(state[0]).not.toMatch(/-state-1\.log$/);
    } finally {
      await sb.cleanup();
    }
  }
}
