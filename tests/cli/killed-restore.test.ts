/**
 * A `lineage restore` killed (SIGKILL) between staging its files and renaming them into place
 * leaves its staging files in the workspace. The point is made exact without a clock: the restore
 * is started by a shell that first makes a FIFO where its second staging file goes (its name holds
 * the pid, the shell's, which `exec` hands to the restore), so the restore stages its first file and
 * then waits on the FIFO for ever. The test waits for the first file to be whole, kills the restore,
 * and reaps it. Its marker (`.alf-restore-<pid>.json`) is left too, and says who it was.
 *
 * The same restore blocked in another pid namespace (`unshare`, its pid set free in ours), as a
 * container sharing the workspace runs one: its files are not ours to remove while it may run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const AT_0 = { 'MEMORY.md': '# Memory\n\n## Owner\nDana owns billing.\n', 'memory/a.md': '## A\nfirst a\n', 'memory/b.md': '## B\nfirst b\n' };
const AT_1 = { 'MEMORY.md': '# Memory\n\n## Owner\nDana owns billing and ops.\n', 'memory/a.md': '## A\nsecond a\n', 'memory/b.md': '## B\nsecond b\n' };

/**
 * Starts `command` (which ends by exec'ing a restore whose second staging file is a FIFO the shell
 * made) and waits until the restore's first staging file, `first` (a function of the restore's
 * pid), holds `size` bytes.
 */
async function blockedRestore(command: string[], env: Record<string, string>, first: (childPid: number) => string, size: number): Promise<{ child: ChildProcess; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  let ended = false;
  void exited.then(() => (ended = true));
  const file = first(child.pid!);
  while ((await fs.stat(file).catch(() => null))?.size !== size) {
    if (ended) throw new Error(`the restore ended before it staged its first file: ${stderr}`);
    await sleep(20);
  }
  return { child, exited };
}

const blockOnFifo = (fifoDir: string) => `mkfifo "$WS/${fifoDir}/.alf-restore-$$-1.tmp" && exec "$@"`;

describe('a restore killed between staging and renaming', () => {
  it('leaves staging files that the sync warns of and does not carry, and the next restore removes', async () => {
    const sb = await makeSandbox('lineage-killed-restore-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const sync = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      for (const [rel, text] of Object.entries(AT_0)) await sb.write(rel, text);
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 0 });
      const at0 = await readTree(sb.workspace);
      for (const [rel, text] of Object.entries(AT_1)) await sb.write(rel, text);
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 1 });
      const at1 = await readTree(sb.workspace);

      // The restore to sequence 0 stages MEMORY.md (0), memory/a.md (1), memory/b.md (2), in path order.
      const restore = ['restore', '-r', 'openclaw', '-w', sb.workspace, '--at-sequence', '0', '--replace', '--data', sb.dataDir];
      const { child, exited } = await blockedRestore(['sh', '-c', blockOnFifo('memory'), 'sh', process.execPath, BIN, ...restore], { ...env, WS: sb.workspace },
        (pid) => path.join(sb.workspace, `.alf-restore-${pid}-0.tmp`), Buffer.byteLength(AT_0['MEMORY.md']));
      const pid = child.pid!;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // The test's FIFO is its own to take away; the restore's staged file is what is left.
      await fs.rm(path.join(sb.workspace, 'memory', `.alf-restore-${pid}-1.tmp`));
      const leftover = `.alf-restore-${pid}-0.tmp`;
      const marker = `.alf-restore-${pid}.json`;
      const left = await readTree(sb.workspace);
      expect(JSON.parse(left.get(marker)!.toString())).toMatchObject({ pid, dirs: ['', 'memory'] });
      left.delete(marker);
      expect(left).toEqual(new Map([...at1, [leftover, Buffer.from(AT_0['MEMORY.md'])] as const].sort(([a], [b]) => (a < b ? -1 : 1))));

      // The sync carries nothing of it (the workspace is at sequence 1 still) and says why.
      const synced = await runCli(sync, env);
      expect(synced.json).toMatchObject({
        ok: true, sequence: 1, no_changes: true,
        warnings: [`a restore into this workspace was interrupted (its process ${pid} is no longer running) and left 1 staging file, which is not synced: ${leftover}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes it`],
      });
      expect(synced.stderr).toContain(`warning: a restore into this workspace was interrupted (its process ${pid}`);

      // A restore that only reports a prompt-update says them as the sync does, and removes nothing.
      const asked = await runCli(restore.filter((arg) => arg !== '--replace'), env);
      expect(asked.json).toMatchObject({ ok: true, action: 'prompt-update', applied: false, warnings: synced.json.warnings });
      expect(asked.stderr).toContain(`warning: a restore into this workspace was interrupted (its process ${pid}`);
      await fs.access(path.join(sb.workspace, leftover));

      // Restored again, the restore is finished and its leftover gone.
      const again = await runCli(restore, env);
      expect(again.json).toMatchObject({ ok: true, action: 'prompt-update', applied: true, removed_staging: [leftover] });
      expect(again.stderr).toContain(`removed 1 staging file an interrupted restore left: ${leftover}`);
      expect(await readTree(sb.workspace)).toEqual(at0); // its marker gone too
      const clean = await runCli(sync, env);
      expect(clean.json).toMatchObject({ ok: true, sequence: 2 });
      expect(clean.json).not.toHaveProperty('warnings');
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('in a directory no walk visits (a ZeroClaw root file linked there): named by the sync from its marker, removed by the next restore', async () => {
    const sb = await makeSandbox('lineage-killed-restore-link-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const at = '2026-05-01T10:00:00Z';
      const agent = 'aaaaaaaa-0000-4000-8000-00000000000a';
      await seedBrainDb({ workspace: sb.workspace, agents: [{ id: agent, alias: 'scout', created_at: at }], rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: at, updated_at: at }] });
      // SOUL.md is a link to persona/SOUL.md: a restore writes through it, staging beside its target.
      await sb.write('persona/SOUL.md', 'first soul\n');
      await fs.symlink('persona/SOUL.md', path.join(sb.workspace, 'SOUL.md'));
      await sb.write('memory/a.md', 'first a\n');
      const sync = ['sync', '-r', 'zeroclaw', '-w', sb.workspace, '--data', sb.dataDir];
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 0 });
      await sb.write('persona/SOUL.md', 'second soul\n');
      await sb.write('memory/a.md', 'second a\n');
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 1 });

      // The restore to sequence 0 stages SOUL.md (0, in persona/), then memory/a.md (1): the FIFO.
      const restore = ['restore', '-r', 'zeroclaw', '-w', sb.workspace, '--at-sequence', '0', '--replace', '--data', sb.dataDir];
      const { child, exited } = await blockedRestore(['sh', '-c', blockOnFifo('memory'), 'sh', process.execPath, BIN, ...restore], { ...env, WS: sb.workspace },
        (pid) => path.join(sb.workspace, 'persona', `.alf-restore-${pid}-0.tmp`), Buffer.byteLength('first soul\n'));
      const pid = child.pid!;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      await fs.rm(path.join(sb.workspace, 'memory', `.alf-restore-${pid}-1.tmp`));
      const leftover = `persona/.alf-restore-${pid}-0.tmp`;

      const synced = await runCli(sync, env);
      expect(synced.json).toMatchObject({
        ok: true, sequence: 1,
        warnings: [`a restore into this workspace was interrupted (its process ${pid} is no longer running) and left 1 staging file, which is not synced: ${leftover}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes it`],
      });

      const again = await runCli(restore, env);
      expect(again.json).toMatchObject({ ok: true, applied: true, removed_staging: [leftover] });
      expect(await fs.readFile(path.join(sb.workspace, 'persona/SOUL.md'), 'utf8')).toBe('first soul\n');
      expect((await fs.readdir(path.join(sb.workspace, 'persona'))).sort()).toEqual(['SOUL.md']);
      expect((await fs.readdir(sb.workspace)).filter((name) => name.startsWith('.alf-restore-'))).toEqual([]);
      expect((await runCli(sync, env)).json).not.toHaveProperty('warnings');
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('in another pid namespace, still running: kept by the restore here and named with how to remove them by hand', async () => {
    const sb = await makeSandbox('lineage-killed-restore-ns-');
    try {
      const env = { ALF_HOME: sb.alfHome };
      const sync = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      for (const [rel, text] of Object.entries(AT_0)) await sb.write(rel, text);
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 0 });
      for (const [rel, text] of Object.entries(AT_1)) await sb.write(rel, text);
      expect((await runCli(sync, env)).json).toMatchObject({ ok: true, sequence: 1 });

      // A restore in a new pid namespace (and user namespace: no privilege needed), with its own
      // ALF_HOME as a container has, whose pid there is one no process here has.
      const inner = freePid();
      const script = path.join(sb.root, 'in-namespace.sh');
      await fs.writeFile(script, `echo ${inner - 1} > /proc/sys/kernel/ns_last_pid || exit 90\nsh -c '${blockOnFifo('memory')}' sh "$@" &\nwait $!\n`);
      const restore = ['restore', '-r', 'openclaw', '-w', sb.workspace, '--at-sequence', '0', '--replace', '--data', sb.dataDir];
      const { child, exited } = await blockedRestore(['unshare', '-Urpf', '--mount-proc', '--kill-child', 'sh', script, process.execPath, BIN, ...restore],
        { ALF_HOME: path.join(sb.root, 'container-home'), WS: sb.workspace }, () => path.join(sb.workspace, `.alf-restore-${inner}-0.tmp`), Buffer.byteLength(AT_0['MEMORY.md']));
      const staged = `.alf-restore-${inner}-0.tmp`;
      const marker = JSON.parse(await fs.readFile(path.join(sb.workspace, `.alf-restore-${inner}.json`), 'utf8')) as { pid_ns: string };
      expect(marker).toMatchObject({ pid: inner, dirs: ['', 'memory'] });

      const kept = `a restore (process ${inner} ran in another pid namespace (${marker.pid_ns}) on this machine — a container sharing the workspace? — where this one cannot see whether it still runs) left 1 staging file in this workspace, which is not synced and is kept, as it may still be writing it: ${staged}; once sure it has ended, remove it by hand (rm -f -- ${sb.workspace}/.alf-restore-${inner}-*.tmp ${sb.workspace}/.alf-restore-${inner}.json) and run the restore again (with --replace if it asks for it)`;
      const synced = await runCli(sync, env);
      expect(synced.json).toMatchObject({ ok: true, sequence: 1, warnings: [kept] });

      // A restore here while it runs: writes the workspace, and leaves that restore's file alone.
      const here = await runCli(restore, env);
      expect(here.json).toMatchObject({ ok: true, applied: true, warnings: [kept] });
      expect(here.json).not.toHaveProperty('removed_staging');
      expect(here.stderr).toContain(`warning: ${kept}`);
      expect(await fs.readFile(path.join(sb.workspace, staged), 'utf8')).toBe(AT_0['MEMORY.md']);

      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      await fs.rm(path.join(sb.workspace, 'memory', `.alf-restore-${inner}-1.tmp`));
      // Still not known here to have ended: kept; removed by hand as the warning says.
      const still = await runCli(restore, env);
      expect(still.json).toMatchObject({ warnings: [kept] });
      const rm = /\(rm -f -- (.*)\) and run/.exec(kept)![1]!;
      expect(spawnSync('sh', ['-c', `rm -f -- ${rm}`]).status).toBe(0);
      expect((await fs.readdir(sb.workspace)).filter((name) => name.startsWith('.alf-restore-'))).toEqual([]);
      expect((await runCli(sync, env)).json).not.toHaveProperty('warnings');
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});

/** A pid no process of this namespace has. */
function freePid(): number {
  const used = new Set(readdirSync('/proc').filter((name) => /^[0-9]+$/.test(name)).map(Number));
  for (let pid = 20_000; pid < 30_000; pid++) if (!used.has(pid)) return pid;
  throw new Error('no free pid between 20000 and 30000');
}
