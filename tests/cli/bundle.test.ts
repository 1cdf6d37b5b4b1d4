import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { INGEST_THREAD_FROM } from '@/lib/sync/local-target';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.resolve(ROOT, '../shared/alf/fixtures/synthetic-agent.alf');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-bundle-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Bundler = { sourceStamp(root: string): string; bundleEntry(root: string, stamp?: string): string | null; buildBundle(root: string): Promise<string>; WORKER_ENTRIES: string[] };
const bundler = async (): Promise<Bundler> => (await import(path.join(ROOT, 'bin', 'cli-bundle.cjs'))) as Bundler;
type CodeCache = { decodeCache(source: Buffer, bytes: Buffer): Buffer | null; sourceText(bytes: Buffer): string };
const codeCache = async (): Promise<CodeCache> => (await import(path.join(ROOT, 'bin', 'cli-cache.cjs'))) as CodeCache;

/**
 * `lineage validate FIXTURE` run from the bundle `entry` as bin/lineage.cjs runs it (cli-cache.cjs
 * `runCommonJs`), in a process of its own, with `cacheFile` as its code cache: how it found the
 * cache, and its JSON.
 */
function runBundleWithCache(entry: string, cacheFile: string): Promise<{ status: string; json: unknown }> {
  const script = `const { runCommonJs } = await import(${JSON.stringify(path.join(ROOT, 'bin', 'cli-cache.cjs'))});
process.argv = [process.execPath, 'lineage', 'validate', ${JSON.stringify(FIXTURE)}];
process.stderr.write('cache: ' + runCommonJs({ file: ${JSON.stringify(entry)}, cacheFile: ${JSON.stringify(cacheFile)}, command: 'validate' }) + '\\n');`;
  return runIn(ROOT, ['--input-type=module', '-e', script], {}).then(({ json, stderr }) => {
    const status = /^cache: (\w+)$/m.exec(stderr)?.[1];
    if (status === undefined) throw new Error(`no cache status on stderr: ${stderr}`);
    return { status, json };
  });
}

describe('the lineage bin', () => {
  it('runs the CLI from a bundle of the current sources, with the same answers as the sources through tsx', async () => {
    const bundled = await runCli(['validate', FIXTURE]);
    expect(bundled.code).toBe(0);
    expect(bundled.json).toMatchObject({ ok: true, valid: true });
    const { sourceStamp, bundleEntry } = await bundler();
    const entry = bundleEntry(ROOT, sourceStamp(ROOT));
    expect(entry).toBe(path.join(ROOT, '.cli', sourceStamp(ROOT), 'main.cjs'));
    // One plain JavaScript file, the worker threads' scripts, and the code caches of the commands run from it: nothing TypeScript is loaded.
    const workers = (await bundler()).WORKER_ENTRIES.map((rel) => `${path.basename(rel, '.ts')}.cjs`);
    expect(fs.readdirSync(path.dirname(entry!)).every((name) => name === 'main.cjs' || name === 'sync.cjs' || workers.includes(name) || name.endsWith('.v8cache'))).toBe(true);
    // Every byte of it ASCII (no comment, a regular expression written in ASCII), so that every start
    // decodes it as Latin-1 (cli-cache.cjs sourceText): a non-ASCII byte, and its place.
    const bundleBytes = fs.readFileSync(entry!);
    const firstOther = bundleBytes.findIndex((byte) => byte > 0x7f);
    expect(firstOther === -1 ? null : bundleBytes.subarray(Math.max(0, firstOther - 80), firstOther + 20).toString('utf8')).toBeNull();
    // validate's own code cache beside the bundle, whole.
    const { decodeCache } = await codeCache();
    expect(decodeCache(fs.readFileSync(entry!), fs.readFileSync(path.join(path.dirname(entry!), 'validate.v8cache')))).not.toBeNull();
    // The next validate takes it (a refused or damaged one would be replaced). Checked on a cache file of
    // this test's own: the one beside the bundle is every test's, and another file's validate may write it
    // meanwhile (a run that found none, or a much longer one than the run that made it).
    const ownCache = path.join(tmp, 'validate.v8cache');
    const made = await runBundleWithCache(entry!, ownCache);
    expect(made.status).toBe('absent');
    expect(decodeCache(fs.readFileSync(entry!), fs.readFileSync(ownCache))).not.toBeNull();
    const inode = fs.statSync(ownCache, { bigint: true }).ino;
    const cached = await runBundleWithCache(entry!, ownCache);
    expect(cached.status).toBe('accepted');
    expect(fs.statSync(ownCache, { bigint: true }).ino).toBe(inode);
    expect(made.json).toEqual(bundled.json);
    const noCache = await runCli(['validate', FIXTURE], { LINEAGE_CLI_CODE_CACHE: '0' });
    const fromSource = await runCli(['validate', FIXTURE], { LINEAGE_CLI_FROM_SOURCE: '1' });
    for (const other of [cached, noCache, fromSource]) expect(other.json).toEqual(bundled.json);
    // A word that is no command is refused, and keeps no cache.
    const typo = path.join(path.dirname(entry!), 'frobnicate.v8cache');
    fs.rmSync(typo, { force: true });
    expect((await runCli(['frobnicate'])).json).toMatchObject({ ok: false });
    expect(fs.existsSync(typo)).toBe(false);
    // A command that reads the database and the migrations beside the sources works from the bundle.
    const data = path.join(tmp, 'data');
    const keys = await runCli(['keys', 'create', '--name', 'bundle', '--data', data]);
    expect(keys.json).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(data, 'lineage.db'))).toBe(true);
  });

  it('starts as CommonJS: a command run by the bin (or by bin/lineage.mjs, its former name) loads no ES module', async () => {
    // A preloaded script that says, as the process exits, whether Node's ES module loader ran a module.
    const preload = path.join(tmp, 'esm-probe.cjs');
    const report = path.join(tmp, 'esm-probe.json');
    fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList.filter((name) => name.includes('esm/module_job')))));\n`);
    const bundled = await runCli(['validate', FIXTURE], { NODE_OPTIONS: `--require ${preload}` });
    expect(bundled.json).toMatchObject({ ok: true, valid: true });
    expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toEqual([]);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin.lineage).toBe('bin/lineage.cjs');
    // The former name still runs the same CLI (through the ES module loader, for itself only).
    const former = await runIn(ROOT, [path.join(ROOT, 'bin', 'lineage.mjs'), 'validate', FIXTURE], {});
    expect(former.json).toEqual(bundled.json);
  });

  it('decodes an ASCII script as Latin-1 and any other as UTF-8: the same text either way', async () => {
    const { sourceText } = await codeCache();
    const ascii = Buffer.from('const a = "x"; // plain\n');
    expect(sourceText(ascii)).toBe(ascii.toString('utf8'));
    for (const text of ['const q = /["\u201C\u201D]/; // \u2014 caf\u00e9\n', 'const e = "\u{1F600}";\n', 'const s = "\u00e9";\n']) {
      expect(sourceText(Buffer.from(text, 'utf8'))).toBe(text);
    }
  });

  it('stamps the sources so that any edit, new or removed file makes a new bundle', async () => {
    const { sourceStamp } = await bundler();
    const root = path.join(tmp, 'pkg');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    for (const rel of ['lib/cli/main.ts', 'lib/core/a.ts', 'db/schema.ts', 'tsconfig.json', 'package.json', 'bin/cli-bundle.cjs', 'bin/resident-client.cjs']) write(rel, `// ${rel}\n`);
    const first = sourceStamp(root);
    expect(sourceStamp(root)).toBe(first);
    const file = path.join(root, 'lib/core/a.ts');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    const touched = sourceStamp(root);
    expect(touched).not.toBe(first);
    write('db/new.ts', '// new\n');
    const added = sourceStamp(root);
    expect(added).not.toBe(touched);
    fs.rmSync(path.join(root, 'db/new.ts'));
    expect(sourceStamp(root)).not.toBe(added);
  });
});

describe('the bundle\'s stamp once built', () => {
  it('covers what the bundle is made of: an edit of a test or of a module nothing imports builds nothing; an edit of the rest, a new file beside it or a listed file removed does', async () => {
    const { sourceStamp, buildBundle, bundleEntry } = await bundler();
    const root = path.join(tmp, 'listed');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    // What the CLI is told it runs (lib/cli/resident.ts cliStamp), printed by this package's CLI.
    write('lib/cli/main.ts', "import { a } from '../core/a';\nconsole.log(JSON.stringify({ a, stamp: (globalThis as Record<symbol, unknown>)[Symbol.for('lineage.cli.stamp')] ?? null }));\n");
    // better-sqlite3, bundled with its addon required by path (cli-bundle.cjs): a query runs, and
    // the module standing in for \`bindings\` is no source of ours (the list is still written).
    write('lib/core/sqlite.ts', "import Database from 'better-sqlite3';\nexport const one = (new Database(':memory:').prepare('SELECT 1 AS x').get() as { x: number }).x;\n");
    write('lib/cli/sync-main.ts', "import { a } from '../core/a';\nimport { one } from '../core/sqlite';\nconsole.log(JSON.stringify({ a, sync: true, one }));\n");
    write('lib/core/a.ts', "export const a = 'a';\n");
    write('lib/core/a.test.ts', '// a test: no bundle imports it\n');
    write('lib/core/unused.ts', "export const unused = 'no command imports this';\n");
    write('lib/storage/ingest-worker.ts', "import { a } from '../core/a';\nconsole.log(a);\n");
    write('db/migrations/0000_init.sql', 'CREATE TABLE t (x);\n');
    for (const rel of ['tsconfig.json', 'package.json']) write(rel, '{}\n');
    // The bin itself, so that the package runs as ours does.
    for (const name of ['lineage.cjs', 'cli-bundle.cjs', 'cli-cache.cjs', 'resident-client.cjs']) write(`bin/${name}`, fs.readFileSync(path.join(ROOT, 'bin', name), 'utf8'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    // Every file and directory an hour old, so that each step below is the newest change.
    const hourAgo = Date.now() - 3_600_000;
    const age = (rel: string, at: number) => fs.utimesSync(path.join(root, rel), new Date(at), new Date(at));
    for (const rel of ['lib/cli/main.ts', 'lib/cli/sync-main.ts', 'lib/core/a.ts', 'lib/core/sqlite.ts', 'lib/core/a.test.ts', 'lib/core/unused.ts', 'lib/storage/ingest-worker.ts', 'db/migrations/0000_init.sql', 'tsconfig.json', 'package.json', 'bin/cli-bundle.cjs', 'bin/resident-client.cjs', 'lib/cli', 'lib/core', 'lib/storage', 'lib', 'db/migrations', 'db']) age(rel, hourAgo);

    const entry = await buildBundle(root);
    const built = sourceStamp(root);
    expect(entry).toBe(path.join(root, '.cli', built, 'main.cjs'));
    expect(bundleEntry(root, built)).toBe(entry);
    const list = JSON.parse(fs.readFileSync(path.join(root, '.cli', 'sources.json'), 'utf8')) as { stamp: string; files: string[]; dirs: string[] };
    expect(list).toEqual({
      stamp: built,
      files: ['bin/cli-bundle.cjs', 'bin/resident-client.cjs', 'db/migrations/0000_init.sql', 'lib/cli/main.ts', 'lib/cli/sync-main.ts', 'lib/core/a.ts', 'lib/core/sqlite.ts', 'lib/storage/ingest-worker.ts', 'package.json', 'tsconfig.json'],
      dirs: ['db/migrations', 'lib/cli', 'lib/core', 'lib/storage'],
    });
    // A test and a module no command imports: the same bundle, no build.
    age('lib/core/a.test.ts', hourAgo + 60_000);
    fs.writeFileSync(path.join(root, 'lib/core/unused.ts'), "export const unused = 'still nothing imports this';\n");
    age('lib/core/unused.ts', hourAgo + 60_000);
    expect(sourceStamp(root)).toBe(built);
    // Data read at run time, a module the bundle is made of, a new file beside them: each a new stamp.
    age('db/migrations/0000_init.sql', hourAgo + 120_000);
    const data = sourceStamp(root);
    expect(data).not.toBe(built);
    age('lib/core/a.ts', hourAgo + 180_000);
    const edited = sourceStamp(root);
    expect(edited).not.toBe(data);
    write('lib/core/a/index.ts', "export const a = 'shadowed?';\n");
    const added = sourceStamp(root);
    expect(added).not.toBe(edited);
    // A listed file removed: the stamp of the walk of lib/ and db/, which names no listed build.
    fs.rmSync(path.join(root, 'lib/core/a.ts'));
    const removed = sourceStamp(root);
    expect(removed).not.toBe(added);
    expect(removed).toMatch(/^\d/);
    // Sources restored, one more module imported, and the bin run: it builds a bundle of them, the
    // list follows, and the CLI is told the stamp of what it runs — the one the next start finds,
    // not the one of the list it started with (a watch serves syncs of the same stamp only).
    write('lib/core/a.ts', "export const a = 'b';\n");
    write('lib/core/b.ts', "export const b = 'c';\n");
    write('lib/cli/main.ts', "import { a } from '../core/a';\nimport { b } from '../core/b';\nconsole.log(JSON.stringify({ a, b, stamp: (globalThis as Record<symbol, unknown>)[Symbol.for('lineage.cli.stamp')] ?? null }));\n");
    const run = await runIn(root, [path.join(root, 'bin', 'lineage.cjs')], {});
    const now = sourceStamp(root);
    expect(now).toMatch(/^l/);
    expect(run.json).toEqual({ a: 'b', b: 'c', stamp: now });
    expect((JSON.parse(fs.readFileSync(path.join(root, '.cli', 'sources.json'), 'utf8')) as { files: string[] }).files).toContain('lib/core/b.ts');
    expect(fs.readdirSync(path.join(root, '.cli')).sort()).toEqual([now, 'sources.json'].sort());
    expect(fs.readdirSync(path.join(root, '.cli', now)).filter((name) => !name.endsWith('.v8cache')).sort()).toEqual(['ingest-worker.cjs', 'main.cjs', 'sync.cjs']);
    // `lineage sync` runs the sync's own bundle, any other word the whole CLI's.
    expect((await runIn(root, [path.join(root, 'bin', 'lineage.cjs'), 'sync'], { LINEAGE_RESIDENT: '0' })).json).toEqual({ a: 'b', sync: true, one: 1 });
    expect((await runIn(root, [path.join(root, 'bin', 'lineage.cjs'), 'validate'], {})).json).toEqual({ a: 'b', b: 'c', stamp: now });
  }, 60_000);

  it("finds better-sqlite3's addon where `bindings` would when it is not in build/Release/", async () => {
    const root = path.join(tmp, 'addon-elsewhere');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    write('lib/cli/main.ts', "console.log(JSON.stringify({ main: true }));\n");
    write('lib/cli/sync-main.ts', "import Database from 'better-sqlite3';\nconsole.log(JSON.stringify({ one: (new Database(':memory:').prepare('SELECT 1 AS x').get() as { x: number }).x }));\n");
    write('lib/storage/ingest-worker.ts', 'export {};\n');
    write('db/schema.ts', 'export {};\n');
    for (const rel of ['tsconfig.json', 'package.json']) write(rel, '{}\n');
    for (const name of ['lineage.cjs', 'cli-bundle.cjs', 'cli-cache.cjs', 'resident-client.cjs']) write(`bin/${name}`, fs.readFileSync(path.join(ROOT, 'bin', name), 'utf8'));
    // This package's node_modules but for better-sqlite3, whose copy has its addon in build/Debug/.
    const modules = path.join(root, 'node_modules');
    fs.mkdirSync(modules);
    for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
      if (name !== 'better-sqlite3') fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
    }
    const real = path.join(ROOT, 'node_modules', 'better-sqlite3');
    const copy = path.join(modules, 'better-sqlite3');
    fs.cpSync(path.join(real, 'lib'), path.join(copy, 'lib'), { recursive: true });
    fs.copyFileSync(path.join(real, 'package.json'), path.join(copy, 'package.json'));
    fs.mkdirSync(path.join(copy, 'build', 'Debug'), { recursive: true });
    fs.copyFileSync(path.join(real, 'build', 'Release', 'better_sqlite3.node'), path.join(copy, 'build', 'Debug', 'better_sqlite3.node'));
    const ran = await runIn(root, [path.join(root, 'bin', 'lineage.cjs'), 'sync'], { LINEAGE_RESIDENT: '0' });
    expect(ran.stderr).toBe('');
    expect(ran.json).toEqual({ one: 1 });
    // Run from the bundle, not from the sources (which a failed build falls back to).
    expect(fs.readdirSync(path.join(root, '.cli')).some((name) => fs.existsSync(path.join(root, '.cli', name, 'sync.cjs')))).toBe(true);
  }, 60_000);
});

describe('the lineage bin with and without its code cache', () => {
  it('carries the ingest thread\'s script beside it: a large delta, synced outside the package, starts its thread from that script, not from esbuild', async () => {
    const { buildBundle, WORKER_ENTRIES } = await bundler();
    expect(WORKER_ENTRIES).toContain('lib/storage/ingest-worker.ts');
    const entry = await buildBundle(ROOT);
    const { makeSandbox, readTree } = await import('@/lib/sync/testing/workspace');
    const sb = await makeSandbox('lineage-bundle-thread-');
    let cleanup = () => {};
    try {
      // Both run from a directory outside the package, as a user's `lineage sync` often is: the
      // thread's script finds its packages (better-sqlite3) from the package, not from there.
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      const env = { ALF_HOME: sb.alfHome };
      // (bin/lineage.mjs, the bin's former name, which runs bin/lineage.cjs.)
      const bin = () => runIn(sb.root, [path.join(ROOT, 'bin', 'lineage.mjs'), ...args], env);
      await sb.write('MEMORY.md', '# Memory\n\n## Start\nA small first snapshot, checked as written on the sync\'s own thread.\n');
      expect((await bin()).json).toMatchObject({ ok: true, sequence: 0 });
      // A delta past INGEST_THREAD_FROM bytes as deflated (text that does not compress) goes to the ingest thread.
      const sections = Math.ceil((2 * INGEST_THREAD_FROM) / 60_000);
      await sb.write('memory/semantic/noise.md', `# Noise\n\n${Array.from({ length: sections }, (_, i) => `## Part ${i}\n${crypto.randomBytes(45_000).toString('base64')}\n`).join('\n')}`);
      // A copy of the bundle whose ingest thread's script only says it ran: run from that copy,
      // the sync fails with its message; from the bundle itself, it succeeds.
      // Beside the bundle, so that its packages resolve as the bundle's do (a new build removes it).
      const copy = fs.mkdtempSync(`${path.dirname(entry)}.test-copy-`);
      cleanup = () => fs.rmSync(copy, { recursive: true, force: true });
      fs.cpSync(path.dirname(entry), copy, { recursive: true });
      fs.writeFileSync(path.join(copy, 'ingest-worker.cjs'), "throw new Error('the prebuilt ingest script ran');\n");
      const fromCopy = await runIn(sb.root, ['--input-type=module', '-e', bundleRunner(path.join(copy, 'main.cjs')), 'lineage', ...args], env);
      expect(fromCopy.json, fromCopy.stderr).toMatchObject({ ok: false });
      expect(JSON.stringify(fromCopy.json), fromCopy.stderr).toContain('the prebuilt ingest script ran');
      const sync = await bin();
      expect(sync.json, sync.stderr).toMatchObject({ ok: true, sequence: 1 });
      const agent = (sync.json.agent as { alf_agent_id: string }).alf_agent_id;
      const out = path.join(sb.root, 'restored');
      const restore = await runCli(['restore', '--agent', agent, '--out', out, '--data', sb.dataDir]);
      expect(restore.json, restore.stderr).toMatchObject({ ok: true });
      const [restored, workspace] = [await readTree(out), await readTree(sb.workspace)];
      expect([...restored.keys()].filter((rel) => rel.startsWith('memory/')).sort()).toEqual([...workspace.keys()].filter((rel) => rel.startsWith('memory/')).sort());
      for (const [rel, bytes] of restored) if (rel.startsWith('memory/')) expect(bytes).toEqual(workspace.get(rel));
    } finally {
      cleanup();
      await sb.cleanup();
    }
  }, 120_000);

  it('syncs and restores the same workspaces either way', async () => {
    const { makeSandbox, readTree } = await import('@/lib/sync/testing/workspace');
    const twins = await Promise.all([makeSandbox('lineage-cache-on-'), makeSandbox('lineage-cache-off-')]);
    const envs: Record<string, string>[] = [{}, { LINEAGE_CLI_CODE_CACHE: '0' }];
    const agent = '5a5a5a5a-3333-4a2b-8c3d-0000000000c1';
    const steps: Record<string, string | null>[] = [
      { 'MEMORY.md': '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n\n## Keys\nRotated monthly.\n', 'memory/2026-11-01.md': '# 2026-11-01\n\n## Standup\nShipped.\n' },
      { 'MEMORY.md': '# M\n\n## Gateway\nThe gateway is 10.20.0.6.\n\n## Keys\nRotated monthly.\n', 'memory/2026-11-02.md': '# 2026-11-02\n\n## Standup\nReviewed.\n' },
      { 'memory/2026-11-01.md': null, 'USER.md': '# User\nDana\n' },
    ];
    try {
      for (const [i, sb] of twins.entries()) {
        await sb.write('.alf-agent-id', agent);
        for (const step of steps) {
          for (const [rel, text] of Object.entries(step)) await (text === null ? sb.remove(rel) : sb.write(rel, text));
          const sync = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ALF_HOME: sb.alfHome, ...envs[i] });
          expect(sync.json, sync.stderr).toMatchObject({ ok: true });
        }
      }
      for (let seq = 0; seq < steps.length; seq++) {
        const trees = [];
        for (const [i, sb] of twins.entries()) {
          const out = path.join(sb.root, `restored-${seq}`);
          const restore = await runCli(['restore', '--agent', agent, '--out', out, '--at-sequence', String(seq), '--data', sb.dataDir], envs[i]);
          expect(restore.json, restore.stderr).toMatchObject({ ok: true });
          trees.push(await readTree(out));
        }
        expect(trees[0]!.size).toBeGreaterThan(0);
        expect(trees[1]).toEqual(trees[0]);
      }
    } finally {
      await Promise.all(twins.map((sb) => sb.cleanup()));
    }
  }, 120_000);
});

/** What runs the CLI from the bundle `file` as bin/lineage.cjs does (without a code cache), for `node -e` (the word after it is argv[1]). */
const bundleRunner = (file: string) => `import { runCommonJs } from ${JSON.stringify(path.join(ROOT, 'bin', 'cli-cache.cjs'))}; runCommonJs({ file: ${JSON.stringify(file)}, cacheFile: null });`;

/** `node <argv>` in `cwd`: the CLI's one JSON line, and its stderr. */
function runIn(cwd: string, argv: string[], env: Record<string, string>): Promise<{ json: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve({ json: JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>, stderr });
      } catch {
        reject(new Error(`no JSON on stdout:\n${stdout}\nstderr:\n${stderr}`));
      }
    });
  });
}
