import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.resolve(ROOT, '../shared/alf/fixtures/synthetic-agent.alf');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-bundle-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Bundler = { sourceStamp(root: string): string; bundleEntry(root: string, stamp?: string): string | null };
const bundler = async (): Promise<Bundler> => (await import(path.join(ROOT, 'bin', 'cli-bundle.mjs'))) as Bundler;

describe('the lineage bin', () => {
  it('runs the CLI from a bundle of the current sources, with the same answers as the sources through tsx', async () => {
    const bundled = await runCli(['validate', FIXTURE]);
    expect(bundled.code).toBe(0);
    expect(bundled.json).toMatchObject({ ok: true, valid: true });
    const { sourceStamp, bundleEntry } = await bundler();
    const entry = bundleEntry(ROOT, sourceStamp(ROOT));
    expect(entry).toBe(path.join(ROOT, '.cli', sourceStamp(ROOT), 'main.mjs'));
    // Every command chunk is plain JavaScript beside it: nothing TypeScript is loaded.
    expect(fs.readdirSync(path.dirname(entry!)).every((name) => name.endsWith('.mjs'))).toBe(true);
    const fromSource = await runCli(['validate', FIXTURE], { LINEAGE_CLI_FROM_SOURCE: '1' });
    expect(fromSource.json).toEqual(bundled.json);
    // A command that reads the database and the migrations beside the sources works from the bundle.
    const data = path.join(tmp, 'data');
    const keys = await runCli(['keys', 'create', '--name', 'bundle', '--data', data]);
    expect(keys.json).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(data, 'lineage.db'))).toBe(true);
  });

  it('stamps the sources so that any edit, new or removed file makes a new bundle', async () => {
    const { sourceStamp } = await bundler();
    const root = path.join(tmp, 'pkg');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    for (const rel of ['lib/cli/main.ts', 'lib/core/a.ts', 'db/schema.ts', 'tsconfig.json', 'package.json', 'bin/cli-bundle.mjs']) write(rel, `// ${rel}\n`);
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
