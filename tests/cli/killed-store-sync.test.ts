import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { CrashPoint } from '@/lib/sync/crash-points';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function killedCli(args: string[], env: Record<string, string>, point: CrashPoint): Promise<{ signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env, LINEAGE_CRASH_AT: point }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ signal }));
  });
}

const POINTS: CrashPoint[] = ['sent-recorded', 'uploaded', 'files-written', 'state-written'];

/**
 * A ZeroClaw sync killed at each step of its state write, the store stat's included (written with
 * the base, before the TOML: killed after it, the next sync finishes the write from it; before it,
 * the record left is the previous sync's, which names another sequence and base): the next sync recovers, an edit of the database is never missed, idle syncs after it are idle
 * (the last one from the stat data alone), and every sequence restores the rows it had.
 */
describe.each(POINTS)('a ZeroClaw sync killed at %s', (point) => {
  it('is recovered by the next sync, and the store stat never hides an edit', async () => {
    const sb = await makeSandbox('lineage-killed-zc-');
    try {
      await seedBrainDb({ workspace: sb.workspace, agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
        { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
      ] });
      const dbFile = path.join(sb.workspace, 'memory', 'brain.db');
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'zeroclaw', '-w', sb.workspace, '--runtime-agent', 'scout', '--data', sb.dataDir];
      const rowsAt = async (agentId: string, seq: number) => {
        const out = path.join(sb.root, `restore-${seq}`);
        const run = await runCli(['restore', '-r', 'zeroclaw', '--agent', agentId, '--runtime-agent', 'scout', '--at-sequence', String(seq), '--out', out, '--data', sb.dataDir], env);
        expect(run.json, JSON.stringify(run.json)).toMatchObject({ ok: true });
        const db = new Database(path.join(out, 'data', 'memory', 'brain.db'), { readonly: true });
        try {
          return db.prepare('SELECT key, content FROM memories ORDER BY key').all();
        } finally {
          db.close();
        }
      };
      await sleep(1100);
      expect(await killedCli(args, env, point)).toMatchObject({ signal: 'SIGKILL' });
      const first = await runCli(args, env);
      expect(first.json, JSON.stringify(first.json)).toMatchObject({ ok: true, sequence: 0 });
      const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;

      await sleep(1100);
      const db = new Database(dbFile);
      db.prepare("UPDATE memories SET content = 'The gateway is 10.20.0.9' WHERE key = 'gateway'").run();
      db.close();
      expect(await killedCli(args, env, point)).toMatchObject({ signal: 'SIGKILL' });
      const again = await runCli(args, env);
      expect(again.json, JSON.stringify(again.json)).toMatchObject({ ok: true, sequence: 1 });

      await sleep(1100);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      const idle = await runCli(args, env);
      expect(idle.json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      expect(idle.stderr).toContain("the store's files are as the last sync saw them");

      expect(await rowsAt(agentId, 0)).toEqual([{ key: 'gateway', content: 'The gateway is 10.20.0.5' }]);
      expect(await rowsAt(agentId, 1)).toEqual([{ key: 'gateway', content: 'The gateway is 10.20.0.9' }]);
    } finally {
      await sb.cleanup();
    }
  }, 240_000);
});
