/**
 * A `lineage restore` killed (SIGKILL) between staging its files and renaming them into place
 * leaves its staging files in the workspace. The point is made exact without a clock: the restore
 * is started by a shell that first makes a FIFO where its second staging file goes (its name holds
 * the pid, the shell's, which `exec` hands to the restore), so the restore stages its first file and
 * then waits on the FIFO for ever. The test waits for the first file to be whole, kills the restore,
 * and reaps it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const AT_0 = { 'MEMORY.md': '# Memory\n\n## Owner\nDana owns billing.\n', 'memory/a.md': '## A\nfirst a\n', 'memory/b.md': '## B\nfirst b\n' };
const AT_1 = { 'MEMORY.md': '# Memory\n\n## Owner\nDana owns billing and ops.\n', 'memory/a.md': '## A\nsecond a\n', 'memory/b.md': '## B\nsecond b\n' };

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
      const child = spawn('sh', ['-c', 'mkfifo "$WS/memory/.alf-restore-$$-1.tmp" && exec "$@"', 'sh', process.execPath, BIN, ...restore], {
        cwd: ROOT, env: { ...process.env, ...env, WS: sb.workspace }, stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      let ended = false;
      void exited.then(() => (ended = true));
      const pid = child.pid!;
      const first = path.join(sb.workspace, `.alf-restore-${pid}-0.tmp`);
      const whole = Buffer.byteLength(AT_0['MEMORY.md']);
      while ((await fs.stat(first).catch(() => null))?.size !== whole) {
        if (ended) throw new Error(`the restore ended before it staged its first file: ${stderr}`);
        await sleep(20);
      }
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // The test's FIFO is its own to take away; the restore's staged file is what is left.
      await fs.rm(path.join(sb.workspace, 'memory', `.alf-restore-${pid}-1.tmp`));
      const leftover = `.alf-restore-${pid}-0.tmp`;
      expect(await readTree(sb.workspace)).toEqual(new Map([...at1, [leftover, Buffer.from(AT_0['MEMORY.md'])] as const].sort(([a], [b]) => (a < b ? -1 : 1))));

      // The sync carries nothing of it (the workspace is at sequence 1 still) and says why.
      const synced = await runCli(sync, env);
      expect(synced.json).toMatchObject({
        ok: true, sequence: 1, no_changes: true,
        warnings: [`a restore into this workspace was interrupted (its process ${pid} is no longer running) and left 1 staging file, which is not synced: ${leftover}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes it`],
      });
      expect(synced.stderr).toContain(`warning: a restore into this workspace was interrupted (its process ${pid}`);

      // Restored again, the restore is finished and its leftover gone.
      const again = await runCli(restore, env);
      expect(again.json).toMatchObject({ ok: true, action: 'prompt-update', applied: true, removed_staging: [leftover] });
      expect(again.stderr).toContain(`removed 1 staging file an interrupted restore left: ${leftover}`);
      expect(await readTree(sb.workspace)).toEqual(at0);
      const clean = await runCli(sync, env);
      expect(clean.json).toMatchObject({ ok: true, sequence: 2 });
      expect(clean.json).not.toHaveProperty('warnings');
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
