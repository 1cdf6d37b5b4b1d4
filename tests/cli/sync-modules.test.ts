/**
 * Start-up cost: a `lineage sync` on the embedded data directory never loads the scale-out
 * backend's modules (`pg`, drizzle's node-postgres driver, zod, the AWS SDK; drizzle's own SQL builder reads parts of its pg-core whatever the database); they load only when a
 * database or blob URL is given (lib/sync/targets.ts). Seen under strace: the files the process opens.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, s3Env } from '@/tests/engines/use-engines';
import { tracedCli } from './traced-cli';

const SCALE_OUT_MODULES = /\/node_modules\/(pg|pg-pool|pg-protocol|@aws-sdk|@smithy|zod)\/|\/drizzle-orm\/node-postgres\//;

const loaded = (opens: { file: string }[]) => [...new Set(opens.map((o) => o.file).filter((f) => SCALE_OUT_MODULES.test(f)))];

type Bundler = { sourceStamp(root: string): string; bundleEntry(root: string, stamp?: string): string | null; buildBundle(root: string): Promise<string> };

describe('what a sync loads', () => {
  // The bundle built first if the sources are newer than it: a traced sync that built it would list
  // every file esbuild read for it (drizzle's node-postgres driver among them) as opened.
  beforeAll(async () => {
    const root = path.resolve(__dirname, '../..');
    const { sourceStamp, bundleEntry, buildBundle } = (await import(path.join(root, 'bin', 'cli-bundle.cjs'))) as Bundler;
    if (bundleEntry(root, sourceStamp(root)) === null) await buildBundle(root);
  }, 120_000);

  it('embedded: a first sync and a delta open no file of pg, zod or the AWS SDK; with scale-out settings they do', async () => {
    const sb = await makeSandbox('lineage-sync-modules-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const env = { ALF_HOME: sb.alfHome, LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '' };
      const args = ['sync', '-w', sb.workspace, '--data', sb.dataDir];
      const first = await tracedCli(args, env, path.join(sb.root, 'first.trace'));
      expect(first.json).toMatchObject({ ok: true, sequence: 0 });
      expect(loaded(first.opens)).toEqual([]);
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.6.\n');
      const delta = await tracedCli(args, env, path.join(sb.root, 'delta.trace'));
      expect(delta.json).toMatchObject({ ok: true, sequence: 1 });
      expect(loaded(delta.opens)).toEqual([]);
      // better-sqlite3's JavaScript is in the bundle (bin/cli-bundle.cjs): of its package the
      // process opens the addon alone, found without \`bindings\` (a sync takes the agent's lock, in
      // SQLite: lib/sync/agent-lock.ts). The first run may have built the bundle, reading them all.
      const idle = await tracedCli(args, env, path.join(sb.root, 'idle.trace'));
      expect(idle.json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      for (const run of [delta, idle]) {
        const files = [...new Set(run.opens.map((o) => o.file))];
        expect(files.filter((f) => /\/node_modules\/(better-sqlite3\/lib|bindings|file-uri-to-path)\//.test(f))).toEqual([]);
        expect(files.filter((f) => /\/node_modules\/better-sqlite3\/build\//.test(f))).toEqual([expect.stringMatching(/\/better-sqlite3\/build\/Release\/better_sqlite3\.node$/)]);
      }

      const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
      const scaleOut = await tracedCli(['sync', '-w', sb.workspace, '--database-url', url, '--blob-url', `s3://${bucket}`], {
        ALF_HOME: path.join(sb.root, 'home-2'), LINEAGE_SECRET: 'ab'.repeat(32), ...s3Env(settings),
      }, path.join(sb.root, 'scale-out.trace'));
      expect(scaleOut.json).toMatchObject({ ok: true, sequence: 0 });
      const modules = loaded(scaleOut.opens);
      for (const name of ['/node_modules/pg/', '/node_modules/@aws-sdk/', '/node_modules/zod/']) expect(modules.some((f) => f.includes(name)), name).toBe(true);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  // Node's own modules an idle sync has no use for, loaded at start by the modules that use them
  // (about 6 ms of CPU in all): node:crypto (no hash: nothing changed), node:worker_threads (no
  // deflate), node:child_process (no compaction to start; commander's require of it, for executable
  // subcommands, is made lazy in the bundle) and with it node:net, node:dgram. Its output goes to a
  // file: a pipe's stdout is a net.Socket, which loads node:net whatever the sync does.
  it('an idle sync loads none of node:crypto, node:worker_threads, node:child_process, node:net', async () => {
    const sb = await makeSandbox('lineage-sync-builtins-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const preload = path.join(sb.root, 'builtins.cjs');
      const listFile = path.join(sb.root, 'builtins.txt');
      await fs.writeFile(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, process.moduleLoadList.join('\\n')));\n`);
      const run = async (name: string) => {
        const out = await fs.open(path.join(sb.root, `${name}.json`), 'w');
        try {
          const code = await new Promise<number | null>((resolve, reject) => {
            const child = spawn(process.execPath, ['-r', preload, path.resolve(__dirname, '../../bin/lineage.cjs'), 'sync', '-w', sb.workspace, '--data', sb.dataDir], {
              cwd: sb.root, env: { ...process.env, ALF_HOME: sb.alfHome, LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '' }, stdio: ['ignore', out.fd, 'ignore'],
            });
            child.on('error', reject);
            child.on('close', resolve);
          });
          expect(code).toBe(0);
        } finally {
          await out.close();
        }
        const json = JSON.parse((await fs.readFile(path.join(sb.root, `${name}.json`), 'utf8')).trim().split('\n').at(-1)!) as Record<string, unknown>;
        const builtins = (await fs.readFile(listFile, 'utf8')).split('\n').filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
        return { json, builtins };
      };
      const unneeded = ['crypto', 'worker_threads', 'child_process', 'net', 'dgram'];
      const first = await run('first');
      expect(first.json).toMatchObject({ ok: true, sequence: 0 });
      expect(first.builtins).toContain('crypto');
      // Twice: the first idle run may make the code cache, the second runs from it.
      for (const name of ['idle-1', 'idle-2']) {
        const idle = await run(name);
        expect(idle.json).toMatchObject({ ok: true, sequence: 0, no_changes: true });
        expect(idle.builtins.filter((m) => unneeded.includes(m)), name).toEqual([]);
        expect(idle.builtins).toContain('fs/promises');
      }
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
