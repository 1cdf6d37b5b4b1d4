/**
 * A store's compaction off the sync's path (lib/sync/store/compact.ts): the sync whose append
 * leaves the log due commits as an append and starts a detached `lineage state compact`, which
 * holds the agent's lock while it writes the next generation. Killed at any step it leaves a state
 * the next sync goes on from; never run, the sync compacts itself once the log is far past due.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import type { CrashPoint } from '@/lib/sync/crash-points';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { expectEverySequenceRestores } from './restores';
import { runCli } from './run-cli';

type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;

/** The store index's header: sequence, generation, log length, live bytes (index-common.ts). */
function header(sb: Sandbox, agentId: string): { sequence: number; generation: number; logLength: number; live: number } {
  const line = fs.readFileSync(path.join(sb.alfHome, '.alf', 'state', `${agentId}-state.idx`)).subarray(0, 200).toString('latin1').split('\n')[0]!;
  const [, , sequence, generation, logLength, live] = line.split(' ').map(Number);
  return { sequence: sequence!, generation: generation!, logLength: logLength!, live: live! };
}

/** A log that holds only what is live: compacting it again (forced) writes as many bytes. */
async function expectCompact(sb: Sandbox, agentId: string): Promise<void> {
  const again = await runCli(['state', 'compact', '--agent', agentId, '--force'], { ALF_HOME: sb.alfHome });
  expect(again.json, again.stderr).toMatchObject({ ok: true, compacted: true });
  expect(again.json.log_bytes).toBe(again.json.log_bytes_before);
}

const logs = (sb: Sandbox, agentId: string) => fs.readdirSync(path.join(sb.alfHome, '.alf', 'state')).filter((n) => n.startsWith(`${agentId}-state-`)).sort();

/** The pids of `lineage state compact --agent ID` processes (Linux /proc). */
function compactors(agentId: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('state');
      if (at >= 0 && argv[at + 1] === 'compact' && argv.includes(agentId)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

async function synced(prefix: string) {
  const sb = await makeSandbox(prefix);
  const memory = (n: number) => `# M\n\n${Array.from({ length: 30 }, (_, i) => `## Fact ${i}\nFact ${i}, version ${i === n % 30 ? n : 0}.\n`).join('\n')}`;
  const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
  await sb.write('MEMORY.md', memory(0));
  await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
  const first = await runCli(args, { ALF_HOME: sb.alfHome });
  expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
  const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
  const states = [await readTree(sb.workspace)];
  /** Edits the workspace and syncs it (`env` added): the run. */
  const sync = async (n: number, env: Record<string, string> = {}) => {
    await sb.write('MEMORY.md', memory(n));
    const run = await runCli(args, { ALF_HOME: sb.alfHome, ...env });
    if (run.json.ok) states.push(await readTree(sb.workspace));
    return run;
  };
  /** Every sequence restores byte-exact, and a sync now finds nothing to do. */
  const sound = async () => {
    await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env: { ALF_HOME: sb.alfHome } });
    expect((await runCli(args, { ALF_HOME: sb.alfHome })).json).toMatchObject({ ok: true, sequence: states.length - 1, no_changes: true });
  };
  return { sb, agentId, args, sync, sound };
}

const DUE = { LINEAGE_STORE_COMPACT: 'background', LINEAGE_STORE_COMPACT_BYTES: '0' };

describe('compaction in the background', () => {
  it('the sync that leaves the log due appends and returns; a detached compaction holding the lock writes the next generation at the same sequence', async () => {
    const { sb, agentId, args, sync, sound } = await synced('lineage-bg-compact-');
    try {
      const before = header(sb, agentId);
      const run = await sync(1, { ...DUE, LINEAGE_COMPACT_STOP_AT: 'locked' });
      expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 1, delta: true });
      expect(run.stderr).toMatch(/compacting the client state in the background/);
      // The sync appended: same generation, a longer log, dead bytes in it.
      const appended = header(sb, agentId);
      expect(appended).toMatchObject({ sequence: 1, generation: before.generation });
      expect(appended.logLength).toBeGreaterThan(before.logLength);
      expect(appended.live).toBeLessThan(appended.logLength);
      // The compaction holds the agent's lock (stopped there): a sync meanwhile waits, here in vain.
      await waitUntil('a compaction process stops holding the lock', () => compactors(agentId).some(isStopped));
      const [pid] = compactors(agentId);
      const busy = await runCli(args, { ALF_HOME: sb.alfHome, LINEAGE_SYNC_LOCK_WAIT_MS: '200' });
      expect(busy.json).toMatchObject({ ok: false, code: 'agent_busy' });
      expect(header(sb, agentId)).toEqual(appended);
      process.kill(pid!, 'SIGCONT');
      await waitUntil('the compaction exits', () => gone(pid!));
      const compacted = header(sb, agentId);
      expect(compacted).toMatchObject({ sequence: 1, generation: before.generation + 1 });
      expect(compacted.logLength).toBeLessThan(appended.logLength);
      expect(logs(sb, agentId)).toEqual([`${agentId}-state-${before.generation + 1}.log`]);
      await expectCompact(sb, agentId);
      await sound();
      expect((await sync(2)).json).toMatchObject({ ok: true, sequence: 2, delta: true });
      await sound();
    } finally {
      for (const pid of compactors(agentId)) if (isStopped(pid)) process.kill(pid, 'SIGKILL');
      await sb.cleanup();
    }
  }, 180_000);

  it('compactions that never run: past three times as many dead bytes as live ones, the sync compacts itself', async () => {
    const { sb, agentId, sync, sound } = await synced('lineage-bg-never-');
    try {
      const started = header(sb, agentId).generation;
      let n = 1;
      // Each sync starts a compaction, stopped before it asks for the lock: the generation changes
      // only by a sync's own compaction.
      for (; header(sb, agentId).generation === started; n++) {
        const run = await sync(n, { ...DUE, LINEAGE_COMPACT_STOP_AT: 'started' });
        expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: n });
        const { logLength, live } = header(sb, agentId);
        if (header(sb, agentId).generation === started) {
          expect(run.stderr).toMatch(/compacting the client state in the background/);
          expect(logLength - live).toBeLessThanOrEqual(3 * live);
        } else {
          expect(run.stderr).not.toMatch(/in the background/);
        }
        expect(n).toBeLessThan(30);
      }
      expect(n).toBeGreaterThan(3);
      await waitUntil('every compaction started has stopped', () => compactors(agentId).length === n - 2 && compactors(agentId).every(isStopped));
      // Let go, each takes the lock in turn (compacting again only what LINEAGE_STORE_COMPACT_BYTES=0 calls due) and exits.
      for (const pid of compactors(agentId)) process.kill(pid, 'SIGCONT');
      await waitUntil('the compactions exit', () => compactors(agentId).length === 0);
      expect(header(sb, agentId).sequence).toBe(n - 1);
      await sound();
      await expectCompact(sb, agentId);
    } finally {
      for (const pid of compactors(agentId)) if (isStopped(pid)) process.kill(pid, 'SIGKILL');
      await sb.cleanup();
    }
  }, 180_000);

  it('`lineage state compact`: nothing when not due, --force compacts; the `.alf` a state export wrote stays named', async () => {
    const { sb, agentId, sync, sound } = await synced('lineage-compact-cmd-');
    try {
      expect((await sync(1)).json).toMatchObject({ ok: true, sequence: 1 });
      const stateDir = path.join(sb.alfHome, '.alf', 'state');
      const before = await readTree(stateDir, []);
      const idle = await runCli(['state', 'compact', '--agent', agentId], { ALF_HOME: sb.alfHome });
      expect(idle.json).toMatchObject({ ok: true, agent_id: agentId, compacted: false, sequence: 1 });
      expect(await readTree(stateDir, [])).toEqual(before);
      expect((await runCli(['state', 'export', '-w', sb.workspace], { ALF_HOME: sb.alfHome })).json).toMatchObject({ ok: true, from: 'store' });
      const alf = fs.readFileSync(path.join(stateDir, `${agentId}-snapshot.alf`));
      const forced = await runCli(['state', 'compact', '-w', sb.workspace, '--force'], { ALF_HOME: sb.alfHome });
      expect(forced.json).toMatchObject({ ok: true, compacted: true, sequence: 1 });
      expect(forced.json.log_bytes).toBeLessThan(forced.json.log_bytes_before as number);
      expect(fs.readFileSync(path.join(stateDir, `${agentId}-snapshot.alf`))).toEqual(alf);
      // The store still names it: a sync goes on from the store (an idle one leaves the `.alf`).
      expect((await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ALF_HOME: sb.alfHome })).json).toMatchObject({ ok: true, no_changes: true });
      expect(fs.existsSync(path.join(stateDir, `${agentId}-snapshot.alf`))).toBe(true);
      await sound();
      const none = await runCli(['state', 'compact', '--agent', '00000000-0000-4000-8000-000000000000'], { ALF_HOME: sb.alfHome });
      expect(none.json).toMatchObject({ ok: true, compacted: false, sequence: null });
      // No state at all: nothing is written, not even a lock.
      const empty = path.join(sb.root, 'empty-home');
      expect((await runCli(['state', 'compact', '--agent', agentId], { ALF_HOME: empty })).json).toMatchObject({ ok: true, compacted: false, sequence: null });
      expect(fs.existsSync(empty)).toBe(false);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  const POINTS: CrashPoint[] = ['log-written', 'files-written'];
  it.each(POINTS)('a compaction killed at %s leaves a state the next sync goes on from, every sequence restoring', async (point) => {
    const { sb, agentId, sync, sound } = await synced(`lineage-compact-killed-${point}-`);
    try {
      expect((await sync(1)).json).toMatchObject({ ok: true, sequence: 1 });
      const killed = await runCli(['state', 'compact', '--agent', agentId, '--force'], { ALF_HOME: sb.alfHome, LINEAGE_CRASH_AT: point }).catch((error: Error) => error);
      // Killed: no JSON line at all.
      expect(killed).toBeInstanceOf(Error);
      await sound();
      expect((await sync(2)).json).toMatchObject({ ok: true, sequence: 2, delta: true });
      await sound();
      // One log is left, the one the index names.
      expect(logs(sb, agentId)).toEqual([`${agentId}-state-${header(sb, agentId).generation}.log`]);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
