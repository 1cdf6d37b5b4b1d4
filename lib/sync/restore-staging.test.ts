/**
 * A restore killed between staging its files and renaming them into place leaves
 * `.alf-restore-<pid>-<n>.tmp` files in the workspace (lib/adapters/shared/staged-write.ts). A sync
 * of any runtime carries none of them into the ledger (which could never drop them again), and says
 * so in a warning naming them — an idle sync too, which still uploads and writes nothing — also
 * those in a directory outside the runtime's walk that the restore's marker names. The next restore
 * into the workspace removes those of a restore KNOWN to have ended (its marker: same kernel and
 * pid namespace, its process gone or its pid another process's now), and nothing else: a running
 * process's, one of another pid namespace or host or of no marker (kept, and said how to remove by
 * hand), or a user's file of a name merely like ours.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { markerName, processStartTime, selfIdentity, type RestoreMarker } from '@/lib/adapters/shared/restore-staging';
import { localTarget } from './local-target';
import { rebuildAt, restoreAgent } from './restore';
import { syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** A pid no process can have (past the system's pid_max): a restore that is no longer running. */
const DEAD = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
const LIVE = process.pid;
/** Pids no process has either: restores in another pid namespace, and of no marker. */
const OTHER_NS = DEAD + 1;
const NO_MARKER = DEAD + 2;
const staged = (pid: number, n: number) => `.alf-restore-${pid}-${n}.tmp`;
const ME = selfIdentity();
/** A directory no runtime's export walks, where a restore wrote through a link: its marker names it. */
const ELSEWHERE = 'notes/deep';

/** Writes the marker of a restore in process `pid` of this kernel and pid namespace (started at `start_time`), naming `dirs`. */
async function mark(sb: { write(rel: string, content: string): Promise<unknown> }, pid: number, over: Partial<RestoreMarker> = {}): Promise<void> {
  await sb.write(markerName(pid), JSON.stringify({ ...ME, pid, start_time: pid === LIVE ? ME.start_time : '1', dirs: [''], ...over }));
}

/** A real process, running until the test ends. */
function sleeper(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  cleanups.push(async () => {
    child.kill('SIGKILL');
  });
  return child;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where each runtime keeps its memory files (what a restore stages into). */
const MEMORY_DIR: Record<Runtime, string> = { openclaw: 'memory', zeroclaw: 'memory', hermes: 'memories' };

async function synced(runtime: Runtime, layout?: StateLayout) {
  const sb = await makeSandbox(`lineage-staging-${runtime}-`);
  cleanups.push(sb.cleanup);
  const at = '2026-05-01T10:00:00Z';
  const agent = 'aaaaaaaa-0000-4000-8000-00000000000a';
  if (runtime === 'openclaw') await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  if (runtime === 'zeroclaw') {
    await seedBrainDb({ workspace: sb.workspace, agents: [{ id: agent, alias: 'scout', created_at: at }], rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: at, updated_at: at }] });
  }
  if (runtime === 'hermes') {
    await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy', started_at: 1780000000, ended_at: 1780000600 }], []);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n' });
  }
  await sb.write(`${MEMORY_DIR[runtime]}/notes.md`, '## Notes\nThe gateway is 10.20.0.5.\n');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const alfHome = path.join(sb.alfHome, '.alf');
  const log: string[] = [];
  const sync = () => syncWorkspace({ runtime, workspace: sb.workspace, target, alfHome, clock, layout, log: (line) => log.push(line) });
  const first = await sync();
  const agentId = first.agent.alf_agent_id;
  const carried = async () => [...(await rebuildAt({ target, agentId, now: clock() })).snapshot.raw.keys()].map((full) => full.slice(`raw/${runtime}/`.length));
  return { sb, sync, log, target, alfHome, clock, agentId, carried };
}

/** Every file under `root` with its size and mtime (ns). */
async function stamps(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    const info = await fs.stat(abs, { bigint: true });
    out.set(path.relative(root, abs), `${info.size}:${info.mtimeNs}`);
  }
  return out;
}

const CASES: [Runtime, StateLayout | undefined][] = [['openclaw', 'store'], ['openclaw', 'alf'], ['zeroclaw', undefined], ['hermes', undefined]];

describe('a sync never carries a restore\'s staging files', () => {
  it.each(CASES)('%s (%s layout): left out, said in a warning, also by the idle sync after it', async (runtime, layout) => {
    const { sb, sync, log, target, agentId, carried } = await synced(runtime, layout);
    const before = await carried();
    const dir = MEMORY_DIR[runtime];
    await sb.write(`${dir}/${staged(DEAD, 1)}`, '## Notes\nThe gateway moved.\n');
    await sb.write(`${dir}/${staged(DEAD, 0)}`, 'a half-restored file');
    await sb.write(staged(DEAD, 2), '# a root file, staged');
    await sb.write(`${dir}/${staged(LIVE, 0)}`, 'a restore that is running');
    await sb.write(`${ELSEWHERE}/${staged(DEAD, 3)}`, 'written through a link');
    await sb.write(`${ELSEWHERE}/${staged(OTHER_NS, 0)}`, 'a restore in a container');
    await mark(sb, DEAD, { dirs: ['', dir, ELSEWHERE] });
    await mark(sb, LIVE, { dirs: [dir] });
    await mark(sb, OTHER_NS, { pid_ns: 'pid:[1]', dirs: [ELSEWHERE] });
    // A change beside them: the sync uploads it, and only it.
    await sb.write(`${dir}/notes.md`, '## Notes\nThe gateway is 10.20.0.6.\n');

    const interrupted = `a restore into this workspace was interrupted (its process ${DEAD} is no longer running) and left 4 staging files, which are not synced: ${staged(DEAD, 2)}, ${dir}/${staged(DEAD, 0)}, ${dir}/${staged(DEAD, 1)}, ${ELSEWHERE}/${staged(DEAD, 3)}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes them`;
    const running = `a restore in process ${LIVE} is writing this workspace: its 1 staging file (${dir}/${staged(LIVE, 0)}) is not synced; sync again once it has finished`;
    const contained = `a restore (process ${OTHER_NS} ran in another pid namespace (pid:[1]) on this machine — a container sharing the workspace? — where this one cannot see whether it still runs) left 1 staging file in this workspace, which is not synced and is kept, as it may still be writing it: ${ELSEWHERE}/${staged(OTHER_NS, 0)}; once sure it has ended, remove it by hand (rm -f -- ${sb.workspace}/${ELSEWHERE}/.alf-restore-${OTHER_NS}-*.tmp ${sb.workspace}/${markerName(OTHER_NS)}) and run the restore again (with --replace if it asks for it)`;
    const [low, high] = DEAD < LIVE ? [interrupted, running] : [running, interrupted];
    const expected = LIVE < OTHER_NS ? [low, high, contained] : [interrupted, contained, running];
    // A SQLite store's files changed within a second of a sync are racy: this one's stat data
    // are trusted by the next, whose idle sync is then the store stat's (no export at all).
    if (runtime !== 'openclaw') await sleep(1100);
    const out = await sync();
    expect(out).toMatchObject({ sequence: 1, delta: true, no_changes: false, warnings: expected });
    expect(await carried()).toEqual(before);

    log.length = 0;
    const written = await stamps(sb.root);
    const idle = await sync();
    expect(idle).toMatchObject({ sequence: 1, no_changes: true, warnings: expected });
    expect(log).toContain(runtime === 'openclaw' ? 'no changes since sequence 1 (no file changed)' : 'no changes since sequence 1 (the store\'s files are as the last sync saw them)');
    // Nothing written: no file of the workspace, the client state or the ledger (the agent's lock
    // file is opened to be held, and stays as it was).
    expect(await stamps(sb.root)).toEqual(written);
    expect((await target.latestEntry(agentId))?.sequence).toBe(1);
    expect(await carried()).toEqual(before);
  });
});

describe('the next restore into the workspace', () => {
  it.each(CASES.filter(([, layout]) => layout !== 'alf'))('%s: removes the staging files of a restore known to have ended, and only those', async (runtime) => {
    const { sb, target, alfHome, clock, agentId } = await synced(runtime);
    const dir = MEMORY_DIR[runtime];
    // Real processes: one whose pid a marker recorded with another start time (the pid reused
    // since), and one whose marker is its own (a restore still running).
    const reused = sleeper().pid!;
    const running = sleeper().pid!;
    let start: string | null = null;
    while ((start = processStartTime(running)) === null) await sleep(10);
    const dead = [staged(DEAD, 0), `${dir}/${staged(DEAD, 0)}`, `${dir}/${staged(DEAD, 7)}`, `${ELSEWHERE}/${staged(DEAD, 8)}`, `${dir}/${staged(reused, 0)}`];
    const kept = [
      `${dir}/${staged(LIVE, 0)}`, // a restore still running: this process
      `${dir}/${staged(running, 0)}`, // and another
      `${ELSEWHERE}/${staged(OTHER_NS, 0)}`, // a restore in another pid namespace: not ours to see
      `${dir}/${staged(NO_MARKER, 0)}`, // no marker says where it ran (an earlier lineage)
      `${dir}/.alf-restore-0${DEAD}-0.tmp`, // look-alikes of a user's: not exactly our shape
      `${dir}/.alf-restore-${DEAD}-01.tmp`,
      `${dir}/.alf-restore-${DEAD}-0.tmp.bak`,
      `${dir}/alf-restore-${DEAD}-0.tmp`,
      `${dir}/.alf-restore-${DEAD}-x.tmp`,
      `${dir}/.alf-restore-99999999999-0.tmp`, // no pid a system gives
    ];
    for (const rel of [...dead, ...kept]) await sb.write(rel, `bytes of ${rel}`);
    await mark(sb, DEAD, { dirs: ['', dir, ELSEWHERE] });
    await mark(sb, reused, { dirs: [dir] });
    await mark(sb, running, { start_time: start, dirs: [dir] });
    await mark(sb, LIVE, { dirs: [dir] });
    await mark(sb, OTHER_NS, { pid_ns: 'pid:[1]', dirs: [ELSEWHERE] });
    // Neither a directory nor a link of our name is a file of ours.
    await fs.mkdir(path.join(sb.workspace, dir, staged(DEAD, 3)));
    await fs.symlink('notes.md', path.join(sb.workspace, dir, staged(DEAD, 4)));

    const out = await restoreAgent({ runtime, target, agentId, workspace: sb.workspace, replace: false, alfHome, clock });
    expect(out).toMatchObject({ action: 'none', applied: false, removed_staging: [...dead].sort() });
    // What is kept is said as a sync says it, in pid order.
    expect(out.warnings).toEqual([
      ...[LIVE, running].sort((a, b) => a - b).map((pid) => `a restore in process ${pid} is writing this workspace: its 1 staging file (${dir}/${staged(pid, 0)}) is not synced; sync again once it has finished`),
      expect.stringContaining(`a restore (process ${OTHER_NS} ran in another pid namespace (pid:[1]) on this machine`),
      expect.stringContaining(`a restore (no marker (${markerName(NO_MARKER)}) says where process ${NO_MARKER} ran`),
    ]);
    expect(out.warnings![3]).toContain(`remove it by hand (rm -f -- ${sb.workspace}/${dir}/.alf-restore-${NO_MARKER}-*.tmp ${sb.workspace}/${markerName(NO_MARKER)})`);
    for (const rel of [...dead, markerName(DEAD), markerName(reused)]) await expect(fs.lstat(path.join(sb.workspace, rel))).rejects.toMatchObject({ code: 'ENOENT' });
    for (const rel of kept) expect(await fs.readFile(path.join(sb.workspace, rel), 'utf8')).toBe(`bytes of ${rel}`);
    for (const pid of [LIVE, running, OTHER_NS]) await fs.access(path.join(sb.workspace, markerName(pid)));
    expect((await fs.lstat(path.join(sb.workspace, dir, staged(DEAD, 3)))).isDirectory()).toBe(true);
    expect((await fs.lstat(path.join(sb.workspace, dir, staged(DEAD, 4)))).isSymbolicLink()).toBe(true);

    // Nothing more of ours to remove: the output says nothing of it.
    const again = await restoreAgent({ runtime, target, agentId, workspace: sb.workspace, replace: false, alfHome, clock });
    expect(again).not.toHaveProperty('removed_staging');
  });

  it('a restore that writes removes them too, and one that only reports a prompt-update changes nothing and says them', async () => {
    const { sb, sync, target, alfHome, clock, agentId } = await synced('openclaw');
    await sb.write('memory/notes.md', '## Notes\nThe gateway is 10.20.0.6.\n');
    await sync();
    const leftover = `memory/${staged(DEAD, 0)}`;
    await sb.write(leftover, 'staged');
    await mark(sb, DEAD, { dirs: ['memory'] });
    const at0 = { runtime: 'openclaw' as const, target, agentId, workspace: sb.workspace, atSequence: 0, alfHome, clock };
    const asked = await restoreAgent({ ...at0, replace: false });
    expect(asked).toMatchObject({
      action: 'prompt-update', applied: false,
      warnings: [`a restore into this workspace was interrupted (its process ${DEAD} is no longer running) and left 1 staging file, which is not synced: ${leftover}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes it`],
    });
    expect(asked).not.toHaveProperty('removed_staging');
    expect(await fs.readFile(path.join(sb.workspace, leftover), 'utf8')).toBe('staged');
    const replaced = await restoreAgent({ ...at0, replace: true });
    expect(replaced).toMatchObject({ action: 'prompt-update', applied: true, removed_staging: [leftover] });
    expect(replaced).not.toHaveProperty('warnings');
    await expect(fs.lstat(path.join(sb.workspace, leftover))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.lstat(path.join(sb.workspace, markerName(DEAD)))).rejects.toMatchObject({ code: 'ENOENT' });
    // The restore's own marker is gone with its staging files.
    expect((await fs.readdir(sb.workspace)).filter((name) => name.startsWith('.alf-restore-'))).toEqual([]);
    expect(await fs.readFile(path.join(sb.workspace, 'memory/notes.md'), 'utf8')).toBe('## Notes\nThe gateway is 10.20.0.5.\n');
  });
});
