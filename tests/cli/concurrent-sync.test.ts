import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockFile, withAgentLock } from '@/lib/sync/agent-lock';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { expectEverySequenceRestores } from './restores';
import { runCli, type CliRun } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;

/**
 * `lineage <args>` started, its stderr watched: `said(text)` resolves once it has written `text`, and
 * fails if it ends without having written it.
 */
function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const watchers: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of watchers) if (stderr.includes(w.text)) w.resolve();
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown> }));
  });
  return {
    done,
    exited: () => child.exitCode !== null,
    said: (text: string) => Promise.race([
      new Promise<void>((resolve) => (stderr.includes(text) ? resolve() : watchers.push({ text, resolve }))),
      done.then((run) => {
        if (!run.stderr.includes(text)) throw new Error(`lineage ${args.join(' ')} ended without writing "${text}": ${run.stdout}${run.stderr}`);
      }),
    ]),
  };
}

/** Every file of the client state (and the workspace's markers) as bytes: what a refused sync must leave alone. */
async function stateBytes(sb: Sandbox): Promise<Map<string, Buffer>> {
  const state = await readTree(path.join(sb.alfHome, '.alf', 'state'), []);
  for (const [rel, bytes] of await readTree(sb.workspace, [])) if (rel.startsWith('.alf')) state.set(`ws/${rel}`, bytes);
  return state;
}

async function latestSequence(sb: Sandbox, agentId: string): Promise<number> {
  const run = await runCli(['restore', '--agent', agentId, '--out', path.join(sb.root, `peek-${Math.random().toString(36).slice(2)}`), '--data', sb.dataDir], { ALF_HOME: sb.alfHome });
  expect(run.json, run.stderr).toMatchObject({ ok: true });
  return run.json.sequence as number;
}

/** A workspace synced once (with another's ALF_HOME and data directory: `shared`); `edit(n)` changes it. */
async function syncedWorkspace(prefix: string, shared?: Sandbox) {
  const sb = await makeSandbox(prefix);
  const env = { ALF_HOME: (shared ?? sb).alfHome };
  const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', (shared ?? sb).dataDir];
  const edit = async (n: number) => {
    for (let f = 0; f < 6; f++) {
      await sb.write(`memory/topic-${f}.md`, `# Topic ${f}\n\n${Array.from({ length: 12 }, (_, i) => `## Fact ${i}\nFact ${i} of topic ${f}, version ${i === n % 12 ? n : 0}.\n`).join('\n')}`);
    }
  };
  await edit(0);
  await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
  const first = await runCli(args, env);
  expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
  const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
  return { sb, env, args, edit, agentId, alfDir: path.join(env.ALF_HOME, '.alf') };
}

/** The lock held by this test process until the returned `release` is called. */
async function holdLock(alfDir: string, key: string): Promise<() => Promise<void>> {
  let release!: () => void;
  let held!: () => void;
  const heldNow = new Promise<void>((resolve) => (held = resolve));
  const holding = withAgentLock({ alfHome: alfDir, key, what: 'the test' }, async () => {
    held();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await heldNow;
  return async () => {
    release();
    await holding;
  };
}

describe('syncs of one agent on one machine', () => {
  it('two `lineage sync` processes started together: one uploads the change, the other then finds nothing to do; the state stays sound', async () => {
    const { sb, env, args, edit, agentId } = await syncedWorkspace('lineage-concurrent-');
    try {
      const states = [await readTree(sb.workspace)];
      for (let round = 1; round <= 4; round++) {
        await edit(round);
        // Every other round compacts the store: a new generation, the case that lost its log.
        const compact: Record<string, string> = round % 2 === 0 ? { LINEAGE_STORE_COMPACT_BYTES: '0' } : {};
        const runs = await Promise.all([runCli(args, { ...env, ...compact }), runCli(args, { ...env, ...compact })]);
        for (const run of runs) expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: round });
        expect(runs.map((run) => run.json.no_changes).sort()).toEqual([false, true]);
        states.push(await readTree(sb.workspace));
      }
      const after = await runCli(args, env);
      expect(after.json, after.stderr).toMatchObject({ ok: true, sequence: 4, no_changes: true });
      await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env });
    } finally {
      await sb.cleanup();
    }
  }, 180_000);

  it('a sync waits for the agent\'s lock before it reads or writes anything, says so, and goes on once it is free', async () => {
    const { sb, env, args, edit, agentId, alfDir } = await syncedWorkspace('lineage-lock-wait-');
    try {
      await edit(1);
      const before = await stateBytes(sb);
      const release = await holdLock(alfDir, agentId);
      const sync = startCli(args, env);
      await sync.said(`waiting for another lineage process to finish with the sync state of agent ${agentId} on this machine`);
      expect(sync.exited()).toBe(false);
      expect(await stateBytes(sb)).toEqual(before);
      expect(await latestSequence(sb, agentId)).toBe(0);
      await release();
      const run = await sync.done;
      expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 1, delta: true });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('a lock held past LINEAGE_SYNC_LOCK_WAIT_MS: sync, --rebase, state export and a restore into the workspace fail with agent_busy and change nothing', async () => {
    const { sb, env, args, edit, agentId, alfDir } = await syncedWorkspace('lineage-lock-busy-');
    try {
      await edit(1);
      const before = await stateBytes(sb);
      const release = await holdLock(alfDir, agentId);
      const busyEnv = { ...env, LINEAGE_SYNC_LOCK_WAIT_MS: '300' };
      const restore = ['restore', '--agent', agentId, '-w', sb.workspace, '--replace', '--data', sb.dataDir];
      for (const command of [args, [...args, '--rebase'], ['state', 'export', '-w', sb.workspace], restore]) {
        const run = await runCli(command, busyEnv);
        expect(run.code, command.join(' ')).toBe(1);
        expect(run.json).toMatchObject({ ok: false, code: 'agent_busy', hint: 'run the command again once it has finished' });
        expect(run.json.error).toMatch(new RegExp(`still holds the sync state of agent ${agentId} on this machine \\(waited 300 ms for it\\); nothing was read or written`));
      }
      expect(await stateBytes(sb)).toEqual(before);
      expect(await latestSequence(sb, agentId)).toBe(0);
      await release();
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 1, delta: true });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('a holder killed with SIGKILL leaves no lock behind: the waiting sync goes on', async () => {
    const { sb, env, args, edit, agentId, alfDir } = await syncedWorkspace('lineage-lock-killed-');
    let holder: ChildProcess | null = null;
    try {
      await edit(1);
      // Another process holds the lock as a sync does (an exclusive SQLite transaction on the file).
      const file = lockFile(alfDir, agentId);
      holder = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)}, { timeout: 0 }); db.pragma('journal_mode = MEMORY'); db.exec('BEGIN IMMEDIATE'); console.log('held'); setInterval(() => {}, 1000);`], { cwd: ROOT });
      await new Promise<void>((resolve) => holder!.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
      const sync = startCli(args, env);
      await sync.said('waiting for another lineage process');
      holder.kill('SIGKILL');
      const run = await sync.done;
      expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 1, delta: true });
    } finally {
      holder?.kill('SIGKILL');
      await sb.cleanup();
    }
  }, 120_000);

  it('syncs of other agents do not wait for it', async () => {
    const one = await syncedWorkspace('lineage-lock-one-');
    const other = await syncedWorkspace('lineage-lock-other-', one.sb);
    try {
      await other.edit(1);
      const release = await holdLock(one.alfDir, one.agentId);
      try {
        const run = await runCli(other.args, { ...other.env, LINEAGE_SYNC_LOCK_WAIT_MS: '0' });
        expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: 1, delta: true });
        expect(run.stderr).not.toMatch(/waiting/);
      } finally {
        await release();
      }
    } finally {
      await one.sb.cleanup();
      await other.sb.cleanup();
    }
  }, 120_000);
});
