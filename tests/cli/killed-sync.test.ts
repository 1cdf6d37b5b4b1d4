import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { catchUpIndex } from '@/lib/history/pending-index';
import { rebuildIndex } from '@/lib/history/rebuild';
import { dumpIndex } from '@/lib/history/testing/temp-ledger';
import { openLedger } from '@/lib/ledger/ledger';
import type { CrashPoint } from '@/lib/sync/crash-points';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { expectEverySequenceRestores } from './restores';
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

/**
 * The state directory holds the state (the store: its index and one log; the target it follows), no temporary file
 * left by a kill, no log of another generation, no `.alf` it no longer is.
 */
async function expectStoreOnly(alfHome: string, agentId: string): Promise<void> {
  const state = (await fs.readdir(path.join(alfHome, '.alf', 'state'))).sort();
  expect(state).toHaveLength(4);
  expect(state[0]).toMatch(new RegExp(`^${agentId}-state-\\d+\\.log$`));
  expect(state.slice(1)).toEqual([`${agentId}-state.idx`, `${agentId}.target`, `${agentId}.toml`]);
}

const POINTS: CrashPoint[] = ['sent-recorded', 'uploaded', 'log-written', 'files-written', 'state-written'];

/**
 * A sync killed at each step of its state write (the upload recorded, accepted, the store's log
 * flushed, its index renamed into place, the TOML written): the next sync, not killed, leaves the
 * ledger and the client state as if the killed one had finished or never run — every sequence
 * restores byte-exact, nothing is uploaded twice, and an idle sync after it finds nothing to do.
 */
describe.each(POINTS)('a sync killed at %s', (point) => {
  it('is recovered by the next sync: first sync and delta sync', () => killedAndRecovered(point), 120_000);
});

/**
 * A delta sync that builds on the store (the first sync done), killed at each step, then a delta
 * sync that compacts the store into a new generation killed at the same step: each recovered by the
 * next sync, as above.
 */
describe.each(POINTS)('a store sync killed at %s', (point) => {
  it('is recovered by the next sync: appending to the log, and compacting it', async () => {
    const sb = await makeSandbox('lineage-killed-store-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      const states: Map<string, Buffer>[] = [];
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      const first = await runCli(args, env);
      expect(first.json).toMatchObject({ ok: true, sequence: 0 });
      const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
      states.push(await readTree(sb.workspace));
      for (const [n, compact] of [[1, {}], [2, { LINEAGE_STORE_COMPACT_BYTES: '0' }]] as const) {
        await sb.write('memory/2026-11-01.md', `# 2026-11-01\n\n## Standup\nShipped the importer, ${n} times.\n`);
        expect(await killedCli(args, { ...env, ...compact }, point)).toMatchObject({ signal: 'SIGKILL' });
        expect((await runCli(args, { ...env, ...compact })).json).toMatchObject({ ok: true, sequence: n });
        states.push(await readTree(sb.workspace));
      }
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, no_changes: true });
      // One more upload: after an adoption the base is a `.alf`, which that turns into the store again.
      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 3, changes: { creates: 1, updates: 0, deletes: 0 } });
      states.push(await readTree(sb.workspace));
      await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env: { ALF_HOME: sb.alfHome } });
      await expectStoreOnly(sb.alfHome, agentId);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});

async function killedAndRecovered(point: CrashPoint): Promise<void> {
  {
    const sb = await makeSandbox('lineage-killed-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
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
      await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env: { ALF_HOME: sb.alfHome } });
      await expectStoreOnly(sb.alfHome, agentId);
    } finally {
      await sb.cleanup();
    }
  }
}

/** MEMORY.md of 300 sections, each holding `value`: a sync that changes all of them leaves its fold to the background. */
const largeMemory = (value: number) => `# M\n\n${Array.from({ length: 300 }, (_, i) => `## Fact ${i}\nFact ${i} is ${value}.\n`).join('\n')}`;

/**
 * A sync of a large change (its entry appended pending, the fold left to a detached
 * `lineage index --catch-up`, lib/history/pending-index.ts) killed at each step: recovered by the
 * next sync as above, and the index the catch-ups leave is the one a rebuild of the ledger makes.
 */
describe.each(POINTS)('a sync of a large change killed at %s', (point) => {
  it('is recovered by the next sync, and the index folded in the background equals the rebuilt one', async () => {
    const sb = await makeSandbox('lineage-killed-large-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      const states: Map<string, Buffer>[] = [];
      let agentId = '';
      for (const seq of [0, 1]) {
        await sb.write('MEMORY.md', largeMemory(seq));
        expect(await killedCli(args, env, point)).toMatchObject({ signal: 'SIGKILL' });
        const run = await runCli(args, env);
        expect(run.json, JSON.stringify(run.json)).toMatchObject({ ok: true, sequence: seq });
        agentId = (run.json.agent as { alf_agent_id: string }).alf_agent_id;
        states.push(await readTree(sb.workspace));
      }
      await sb.write('MEMORY.md', largeMemory(2));
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, changes: { creates: 0, updates: 300, deletes: 0 } });
      states.push(await readTree(sb.workspace));
      await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env: { ALF_HOME: sb.alfHome } });
      await expectStoreOnly(sb.alfHome, agentId);
      const ledger = openLedger(sb.dataDir);
      try {
        await catchUpIndex(ledger);
        const folded = dumpIndex(ledger);
        expect((folded.ledger_entries as { updates: number }[]).map((e) => e.updates)).toEqual([0, 300, 300]);
        await rebuildIndex({ ledger });
        expect(dumpIndex(ledger)).toEqual(folded);
      } finally {
        closeDatabase(ledger.db);
      }
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
