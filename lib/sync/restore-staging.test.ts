/**
 * A restore killed between staging its files and renaming them into place leaves
 * `.alf-restore-<pid>-<n>.tmp` files in the workspace (lib/adapters/shared/staged-write.ts). A sync
 * of any runtime carries none of them into the ledger (which could never drop them again), and says
 * so in a warning naming them — an idle sync too, which still uploads and writes nothing. The next
 * restore into the workspace removes those of a process that is no longer running, and nothing
 * else: a running process's (this test's own pid), or a user's file of a name merely like ours.
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
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
const staged = (pid: number, n: number) => `.alf-restore-${pid}-${n}.tmp`;
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
    // A change beside them: the sync uploads it, and only it.
    await sb.write(`${dir}/notes.md`, '## Notes\nThe gateway is 10.20.0.6.\n');

    const interrupted = `a restore into this workspace was interrupted (its process ${DEAD} is no longer running) and left 3 staging files, which are not synced: ${staged(DEAD, 2)}, ${dir}/${staged(DEAD, 0)}, ${dir}/${staged(DEAD, 1)}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes them`;
    const running = `a restore in process ${LIVE} is writing this workspace: its 1 staging file (${dir}/${staged(LIVE, 0)}) is not synced; sync again once it has finished (if process ${LIVE} is no restore, the restore was interrupted: run it again, which removes it)`;
    const [low, high] = DEAD < LIVE ? [interrupted, running] : [running, interrupted];
    // A SQLite store's files changed within a second of a sync are racy: this one's stat data
    // are trusted by the next, whose idle sync is then the store stat's (no export at all).
    if (runtime !== 'openclaw') await sleep(1100);
    const out = await sync();
    expect(out).toMatchObject({ sequence: 1, delta: true, no_changes: false, warnings: [low, high] });
    expect(await carried()).toEqual(before);

    log.length = 0;
    const written = await stamps(sb.root);
    const idle = await sync();
    expect(idle).toMatchObject({ sequence: 1, no_changes: true, warnings: [low, high] });
    expect(log).toContain(runtime === 'openclaw' ? 'no changes since sequence 1 (no file changed)' : 'no changes since sequence 1 (the store\'s files are as the last sync saw them)');
    // Nothing written: no file of the workspace, the client state or the ledger (the agent's lock
    // file is opened to be held, and stays as it was).
    expect(await stamps(sb.root)).toEqual(written);
    expect((await target.latestEntry(agentId))?.sequence).toBe(1);
    expect(await carried()).toEqual(before);
  });
});

describe('the next restore into the workspace', () => {
  it.each(CASES.filter(([, layout]) => layout !== 'alf'))('%s: removes a dead restore\'s staging files, and only those', async (runtime) => {
    const { sb, target, alfHome, clock, agentId } = await synced(runtime);
    const dir = MEMORY_DIR[runtime];
    const dead = [staged(DEAD, 0), `${dir}/${staged(DEAD, 0)}`, `${dir}/${staged(DEAD, 7)}`];
    const kept = [
      `${dir}/${staged(LIVE, 0)}`, // a restore still running: this process
      `${dir}/.alf-restore-0${DEAD}-0.tmp`, // look-alikes of a user's: not exactly our shape
      `${dir}/.alf-restore-${DEAD}-01.tmp`,
      `${dir}/.alf-restore-${DEAD}-0.tmp.bak`,
      `${dir}/alf-restore-${DEAD}-0.tmp`,
      `${dir}/.alf-restore-${DEAD}-x.tmp`,
      `${dir}/.alf-restore-99999999999-0.tmp`, // no pid a system gives
    ];
    for (const rel of [...dead, ...kept]) await sb.write(rel, `bytes of ${rel}`);
    // Neither a directory nor a link of our name is a file of ours.
    await fs.mkdir(path.join(sb.workspace, dir, staged(DEAD, 3)));
    await fs.symlink('notes.md', path.join(sb.workspace, dir, staged(DEAD, 4)));

    const out = await restoreAgent({ runtime, target, agentId, workspace: sb.workspace, replace: false, alfHome, clock });
    expect(out).toMatchObject({ action: 'none', applied: false, removed_staging: dead.sort() });
    for (const rel of dead) await expect(fs.lstat(path.join(sb.workspace, rel))).rejects.toMatchObject({ code: 'ENOENT' });
    for (const rel of kept) expect(await fs.readFile(path.join(sb.workspace, rel), 'utf8')).toBe(`bytes of ${rel}`);
    expect((await fs.lstat(path.join(sb.workspace, dir, staged(DEAD, 3)))).isDirectory()).toBe(true);
    expect((await fs.lstat(path.join(sb.workspace, dir, staged(DEAD, 4)))).isSymbolicLink()).toBe(true);

    // Nothing more of ours to remove: the output says nothing of it.
    const again = await restoreAgent({ runtime, target, agentId, workspace: sb.workspace, replace: false, alfHome, clock });
    expect(again).not.toHaveProperty('removed_staging');
  });

  it('a restore that writes removes them too, and one that only reports a prompt-update changes nothing', async () => {
    const { sb, sync, target, alfHome, clock, agentId } = await synced('openclaw');
    await sb.write('memory/notes.md', '## Notes\nThe gateway is 10.20.0.6.\n');
    await sync();
    const leftover = `memory/${staged(DEAD, 0)}`;
    await sb.write(leftover, 'staged');
    const at0 = { runtime: 'openclaw' as const, target, agentId, workspace: sb.workspace, atSequence: 0, alfHome, clock };
    const asked = await restoreAgent({ ...at0, replace: false });
    expect(asked).toMatchObject({ action: 'prompt-update', applied: false });
    expect(asked).not.toHaveProperty('removed_staging');
    expect(await fs.readFile(path.join(sb.workspace, leftover), 'utf8')).toBe('staged');
    const replaced = await restoreAgent({ ...at0, replace: true });
    expect(replaced).toMatchObject({ action: 'prompt-update', applied: true, removed_staging: [leftover] });
    await expect(fs.lstat(path.join(sb.workspace, leftover))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readFile(path.join(sb.workspace, 'memory/notes.md'), 'utf8')).toBe('## Notes\nThe gateway is 10.20.0.5.\n');
  });
});
