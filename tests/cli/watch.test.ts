/**
 * `lineage watch` for real: the package's bin in child processes, a workspace on disk, a local data
 * directory. A watch syncs by itself when files change, runs the `lineage sync`s of its workspace
 * and target for them (their output relayed as theirs), declines every other sync, and a sync it
 * was running when it was killed is finished by the `lineage sync` that asked for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AlfApiClient } from '@/lib/client/alf-api';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { waitUntil } from '@/lib/ledger/testing/packer-process';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { expectEverySequenceRestores } from './restores';
import { startTestServer } from '../server/harness';
import { runCli } from './run-cli';
import { startWatch, type Watch } from './watch-process';

const SERVED = 'ran a lineage sync for another process';

const ready = (w: Watch) => w.until((x) => /serving lineage sync on/.test(x.stderr()), 'it was ready');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MEMORY = '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n';

/** A sandbox (its MEMORY.md written unless `empty`), the watches and syncs of its workspace and data directory. */
async function inSandbox(body: (t: {
  sb: Awaited<ReturnType<typeof makeSandbox>>;
  env: Record<string, string>;
  /** `lineage watch ARGS -w WS --data DATA` with the sandbox's ALF_HOME (and `extraEnv`). */
  watch(args: string[], extraEnv?: Record<string, string>): Watch;
  /** `lineage sync -w WS --data DATA`. */
  sync(): ReturnType<typeof runCli>;
  /** The sockets' directory. */
  runDir(): string[];
}) => Promise<void>, options: { empty?: boolean } = {}): Promise<void> {
  const sb = await makeSandbox('lineage-watch-');
  try {
    const env = { ALF_HOME: sb.alfHome };
    if (!options.empty) await sb.write('MEMORY.md', MEMORY);
    await body({
      sb, env,
      watch: (args, extraEnv = {}) => startWatch([...args, '-w', sb.workspace, '--data', sb.dataDir], { ...env, ...extraEnv }),
      sync: () => runCli(['sync', '-w', sb.workspace, '--data', sb.dataDir], env),
      runDir: () => fs.readdirSync(path.join(sb.alfHome, '.alf', 'run')),
    });
  } finally {
    await sb.cleanup();
  }
}

describe('lineage watch', () => {
  it('runs the lineage syncs of its workspace and target: their output is theirs, the history the same as syncs run alone', () => inSandbox(async ({ sb, env, watch: start, sync, runDir }) => {
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    const watch = start(['--on-demand']);
    await ready(watch);
    expect(watch.outputs()).toEqual([]); // on demand: no sync of its own

    // Asked from another directory, with paths relative to it: the same workspace and target.
    const rel = (p: string) => path.relative(sb.root, p);
    const relSync = () => runCli(['sync', '-w', rel(sb.workspace), '--data', rel(sb.dataDir)], env, sb.root);
    const states: Map<string, Buffer>[] = [];
    const first = await relSync();
    expect(first.json).toMatchObject({ ok: true, sequence: 0, delta: false });
    expect(first.stderr).toContain('first sync of');
    states.push(await readTree(sb.workspace));
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer, and the exporter.\n');
    await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
    const second = await relSync();
    expect(second.json).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 1, updates: 1, deletes: 0 } });
    states.push(await readTree(sb.workspace));
    const idle = await relSync();
    expect(idle.json).toMatchObject({ ok: true, sequence: 1, no_changes: true });

    // Each ran in the watch: it printed the same lines, and said it ran them.
    expect(watch.outputs()).toEqual([first.json, second.json, idle.json]);
    expect(watch.stderr().split(SERVED).length - 1).toBe(3);
    // A failure is relayed as the sync's own: its payload, its exit code.
    fs.renameSync(sb.workspace, `${sb.workspace}-away`);
    const failed = await sync();
    fs.renameSync(`${sb.workspace}-away`, sb.workspace);
    expect(failed.code).toBe(1);
    expect(failed.json).toMatchObject({ ok: false, error: expect.stringContaining('workspace not found') });
    expect(failed.stderr).toContain('error: workspace not found');
    expect(watch.outputs().at(-1)).toEqual(failed.json);
    expect(watch.stderr().split(SERVED).length - 1).toBe(4);
    const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
    await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env });

    // Stopped, it removes its socket and exits 0; a lineage sync then runs in its own process.
    watch.child.kill('SIGTERM');
    expect(await watch.exited).toEqual({ code: 0, signal: null });
    expect(runDir()).toEqual([]);
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
  }), 120_000);

  it('keys the files that change ahead of the lineage sync it runs next (on demand too): the same history as syncs run alone', () => inSandbox(async ({ sb, env, watch: start, sync }) => {
    const watch = start(['--on-demand']);
    await ready(watch);
    const states: Map<string, Buffer>[] = [];
    const first = await sync();
    expect(first.json).toMatchObject({ ok: true, sequence: 0 });
    states.push(await readTree(sb.workspace));
    for (const [n, fact] of ['The gateway is 10.20.0.6.', 'The gateway is 10.20.0.7.'].entries()) {
      await sb.write('MEMORY.md', `${MEMORY}\n## Gateway, again\n${fact}\n`);
      await watch.until((w) => w.stderr().split('keyed 1 changed file ahead of the next sync').length - 1 === n + 1, 'it keyed MEMORY.md');
      const next = await sync();
      expect(next.json).toMatchObject({ ok: true, sequence: n + 1, delta: true });
      expect(next.stderr).toContain('1 changed file keyed ahead by the watch');
      states.push(await readTree(sb.workspace));
    }
    // A change large enough that its fold into the history index is left to a detached process:
    // the watch starts it once it has relayed the output, and nothing else is needed for the fold.
    await sb.write('MEMORY.md', `${MEMORY}\n${Array.from({ length: 300 }, (_, i) => `## Fact ${i}\nThe value ${i} is ${i * 7}.\n`).join('\n')}`);
    await watch.until((w) => w.stderr().split('keyed 1 changed file ahead of the next sync').length - 1 === 3, 'it keyed MEMORY.md');
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 3, changes: { creates: 300, updates: 0, deletes: 1 } });
    states.push(await readTree(sb.workspace));
    const pending = () => {
      const db = new Database(path.join(sb.dataDir, 'lineage.db'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) FROM index_pending').pluck().get() as number);
      } finally {
        db.close();
      }
    };
    await waitUntil('the detached fold of sequence 3', () => pending() === 0, 60_000);
    await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId: (first.json.agent as { alf_agent_id: string }).alf_agent_id, states, env });
  }), 120_000);

  it('declines a sync of another target, which then runs in its own process', () => inSandbox(async ({ sb, env, watch: start }) => {
    const watch = start(['--on-demand']);
    await ready(watch);
    const other = path.join(sb.root, 'other-data');
    const run = await runCli(['sync', '-w', sb.workspace, '--data', other], env);
    expect(run.json).toMatchObject({ ok: true, sequence: 0, delta: false });
    expect(fs.existsSync(path.join(other, 'lineage.db'))).toBe(true);
    expect(fs.existsSync(path.join(sb.dataDir, 'lineage.db'))).toBe(false);
    expect(watch.stderr()).not.toContain(SERVED);
    expect(watch.outputs()).toEqual([]);
  }), 120_000);

  it('syncs by itself once files change and then stay quiet, and not again for its own writes', () => inSandbox(async ({ sb, watch: start, sync }) => {
    const watch = start(['--quiet', '200']);
    // It catches up first: the workspace as it found it.
    await watch.until((w) => w.outputs().length === 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0, delta: false });
    // Its own writes (the workspace's id and sync marker) are not changes: nothing more runs.
    await pause(1500);
    expect(watch.outputs()).toHaveLength(1);
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    await watch.until((w) => w.outputs().length === 2, 'a sync of the change');
    expect(watch.outputs()[1]).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
    await pause(1500);
    expect(watch.outputs()).toHaveLength(2);
    // And a lineage sync finds nothing to do.
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
    // A second watch of the same workspace and target refuses to start.
    const second = start([]);
    expect((await second.exited).code).toBe(1);
    expect(second.outputs()[0]).toMatchObject({ ok: false, code: 'watch_running' });
  }), 120_000);

  it('a sync of its own that fails for a reason that passes (the data directory busy) is tried again by itself, with --interval 0 and no change after it', () => inSandbox(async ({ sb, watch: start }) => {
    const watch = start(['--quiet', '100', '--interval', '0']);
    await watch.until((w) => w.outputs().length === 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0 });
    // Another process holds the data directory's database for a write (an index rebuild would).
    // (A background index catch-up of the first sync may hold it a while: waited for.)
    const holder = new Database(path.join(sb.dataDir, 'lineage.db'), { timeout: 60_000 });
    try {
      holder.exec('BEGIN IMMEDIATE');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      // (Its stdout and stderr are two pipes: either may come first.)
      await watch.until((w) => w.outputs().length === 2 && /trying the sync again in 5 s \(it failed for a reason that passes\)/.test(w.stderr()), 'it said it would try again');
      expect(watch.outputs()[1]).toMatchObject({ ok: false, code: 'busy', hint: 'nothing was stored: run the same sync again in a moment' });
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
    // No file changes again, and no interval: the retry alone syncs the change.
    await watch.until((w) => w.outputs().length === 3, 'the sync tried again');
    expect(watch.outputs()[2]).toMatchObject({ ok: true, sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });
  }), 120_000);

  it('stopped during its first sync, lets that sync finish and exits', () => inSandbox(async ({ watch: start, sync, runDir }) => {
    const watch = start([]);
    await ready(watch);
    watch.child.kill('SIGTERM');
    expect(await watch.exited).toEqual({ code: 0, signal: null });
    expect(watch.outputs()).toEqual([expect.objectContaining({ ok: true, sequence: 0 })]);
    expect(runDir()).toEqual([]);
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 0, no_changes: true });
  }), 120_000);

  it('a ZeroClaw agent: syncs each write to its database, and not again for the sync\'s own reads of it', () => inSandbox(async ({ sb, watch: start }) => {
    const agent = '0a000000-0000-4000-8000-00000000000a';
    const row = (id: string, key: string, content: string) => ({ id, key, content, agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' });
    await seedBrainDb({ workspace: sb.workspace, agents: [{ id: agent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [row('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5')] });
    const watch = start(['-r', 'zeroclaw', '--runtime-agent', 'scout', '--quiet', '200']);
    await watch.until((w) => w.outputs().length === 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0 });
    const db = new Database(path.join(sb.workspace, 'memory', 'brain.db'));
    try {
      db.prepare("UPDATE memories SET content = 'The gateway is 10.20.0.9', updated_at = '2026-05-08T10:00:00Z' WHERE key = 'gateway'").run();
    } finally {
      db.close();
    }
    await watch.until((w) => w.outputs().length === 2, 'a sync of the write');
    expect(watch.outputs()[1]).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
    await pause(1500);
    // At most one more, idle (the database's journal came and went while the sync read it); then none.
    const after = watch.outputs().slice(2);
    expect(after.length).toBeLessThanOrEqual(1);
    for (const output of after) expect(output).toMatchObject({ ok: true, sequence: 1, no_changes: true });
  }, { empty: true }), 120_000);

  it('killed while it runs a lineage sync: that sync finishes in its own process, and the history is whole', () => inSandbox(async ({ sb, env, watch: start, sync, runDir }) => {
    const states: Map<string, Buffer>[] = [];
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 0 });
    states.push(await readTree(sb.workspace));
    // The watch dies (SIGKILL) once the upload it runs is accepted, before its client state is written.
    const watch = start(['--on-demand'], { LINEAGE_CRASH_AT: 'uploaded' });
    await ready(watch);
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    const run = await sync();
    expect(run.stderr).toMatch(/the watch \(pid \d+\) that was running this sync stopped before it finished; syncing in this process/);
    expect(await watch.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(run.json).toMatchObject({ ok: true, sequence: 1, recovered: true });
    states.push(await readTree(sb.workspace));
    // Its socket is left behind: nobody answers it, syncs go on, and the next one removes it (its pid is gone).
    expect(runDir()).toEqual([`watch-${watch.child.pid}.sock`]);
    await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 2, delta: true });
    expect(runDir()).toEqual([]);
    states.push(await readTree(sb.workspace));
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 2, no_changes: true });
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    await expectEverySequenceRestores({ root: sb.root, dataDir: sb.dataDir, agentId, states, env });
  }), 120_000);

  it('a second watch of the workspace to another target (--data DIR, --server URL) refuses to start, naming the watch that runs; the first goes on', () => inSandbox(async ({ sb, env, watch: start }) => {
    const first = start(['--quiet', '200', '--interval', '0']);
    await first.until((w) => w.outputs().length === 1, 'its first sync');
    expect(first.outputs()[0]).toMatchObject({ ok: true, sequence: 0, delta: false });
    const other = path.join(sb.root, 'other-data');
    const server = await startTestServer();
    try {
      const seconds = [
        startWatch(['--quiet', '200', '-w', sb.workspace, '--data', other], env),
        startWatch(['--quiet', '200', '-w', sb.workspace, '--server', server.url, '--key', server.keyA], env),
      ];
      for (const second of seconds) {
        // (Started, it would sync: its first output says which.)
        await second.until((w) => w.outputs().length === 1, 'its answer');
        const refused = second.outputs()[0]!;
        expect(refused, JSON.stringify(refused)).toMatchObject({ ok: false, code: 'watch_running' });
        expect((await second.exited).code).toBe(1);
        expect(refused.error).toContain(`another lineage watch (pid ${first.child.pid}) already syncs ${sb.workspace}, to ${sb.dataDir}`);
        expect(refused.error).toContain('target_changed');
        expect(refused.hint).toContain(`kill ${first.child.pid}`);
      }
      expect(seconds[0]!.outputs()[0]!.error).toContain(`(--data ${other})`);
      expect(seconds[1]!.outputs()[0]!.error).toContain(`(--server ${server.url})`);
      expect(JSON.stringify(seconds[1]!.outputs()[0])).not.toContain(server.keyA);
      // Nothing of it was made (the server holds no agent), and the first goes on syncing the workspace's changes.
      expect(fs.existsSync(other)).toBe(false);
      expect(await new AlfApiClient({ baseUrl: server.url, apiKey: server.keyA }).listAgents()).toEqual([]);
    } finally {
      await server.close();
    }
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    await first.until((w) => w.outputs().length === 2, 'a sync of the change');
    expect(first.outputs()[1]).toMatchObject({ ok: true, sequence: 1, delta: true });
    expect(first.stderr()).not.toContain('target_changed');
  }), 120_000);

  it('a starting watch removes the sockets of watches killed (their pid gone), never a live one\'s', () => inSandbox(async ({ watch: start, runDir }) => {
    const killed = start(['--on-demand']);
    await ready(killed);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(runDir()).toEqual([`watch-${killed.child.pid}.sock`]);
    const live = start(['--on-demand']);
    await ready(live);
    expect(runDir()).toEqual([`watch-${live.child.pid}.sock`]);
    // Another watch starting finds the live one (and is refused by it: the same workspace and target); its socket stays.
    // (Started, it would sync: its first output says which.)
    const next = start(['--quiet', '300']);
    await next.until((w) => w.outputs().length === 1, 'its answer');
    expect(next.outputs()[0]).toMatchObject({ ok: false, code: 'watch_running' });
    expect((await next.exited).code).toBe(1);
    expect(runDir()).toEqual([`watch-${live.child.pid}.sock`]);
  }), 120_000);
});
