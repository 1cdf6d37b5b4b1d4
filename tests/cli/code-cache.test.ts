/**
 * The CLI's V8 code cache (bin/cli-cache.cjs), run for real in child Node processes on a small
 * CommonJS file: made by a first run, taken by the next, never given to V8 when it is damaged,
 * cut short or made for other source, made again when V8 refuses it, grown when a later run
 * compiles more, and always the same answers as without it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CACHE_MODULE = path.resolve(__dirname, '../../bin/cli-cache.cjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-code-cache-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * A script whose answer shows which code ran: `g`, long, is compiled only when PROBE=both, which
 * also spends ~0.3 s of CPU (a run that much longer than the cache's maker checks what it compiled).
 * It says it ran the command PROBE_COMMAND, as lib/cli/main.ts does.
 */
const probe = (factor: number) => `
function f(n) { return n * ${factor}; }
function g(n) {
  let total = n;
${Array.from({ length: 400 }, (_, i) => `  total = (total * 31 + ${i}) % 1000003;`).join('\n')}
  return total;
}
const both = process.env.PROBE === 'both';
globalThis[Symbol.for('lineage.cli.command')] = process.env.PROBE_COMMAND || null;
if (both) { const t = process.cpuUsage(); while (process.cpuUsage(t).user < 300000); }
console.log(JSON.stringify({ f: f(21), g: both ? g(41) : null, file: path.basename(__filename), join: typeof require('node:path').join }));
`.replace('function f', "const path = require('node:path');\nfunction f");

interface Run { status: string; answer: unknown }

/** One child process running `file` through runCommonJs with `cacheFile` (null: no cache). */
function run(file: string, cacheFile: string | null, options: { probe?: string; flags?: string[]; command?: string; ran?: string } = {}): Promise<Run> {
  const code = `import { runCommonJs } from ${JSON.stringify(CACHE_MODULE)};
process.stderr.write('status ' + runCommonJs({ file: ${JSON.stringify(file)}, cacheFile: ${JSON.stringify(cacheFile)}, command: ${JSON.stringify(options.command ?? null)} }) + '\\n');`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.flags ?? []), '--input-type=module', '-e', code], { env: { ...process.env, PROBE: options.probe ?? '', PROBE_COMMAND: options.ran ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (exit) => {
      const status = /status (\w+)/.exec(stderr)?.[1];
      if (exit !== 0 || !status) return reject(new Error(`exit ${exit}: ${stderr}`));
      resolve({ status, answer: JSON.parse(stdout) });
    });
  });
}

function setUp(name: string, factor = 2): { file: string; cache: string } {
  const dir = fs.mkdtempSync(path.join(tmp, `${name}-`));
  const file = path.join(dir, 'main.cjs');
  fs.writeFileSync(file, probe(factor));
  return { file, cache: path.join(dir, 'probe.v8cache') };
}

const inode = (file: string) => fs.statSync(file, { bigint: true }).ino;
const expected = (g: boolean) => ({ f: 42, g: g ? expect.any(Number) : null, file: 'main.cjs', join: 'function' });

describe('the CLI code cache', () => {
  it('is written by the first run and taken by the next, with the same answers as no cache', async () => {
    const { file, cache } = setUp('first');
    const first = await run(file, cache);
    expect(first).toEqual({ status: 'absent', answer: expected(false) });
    expect(fs.existsSync(cache)).toBe(true);
    const second = await run(file, cache);
    expect(second).toEqual({ status: 'accepted', answer: first.answer });
    expect(await run(file, null)).toEqual({ status: 'absent', answer: first.answer });
    // Taken as it is: a run that compiles nothing new leaves the file alone.
    const before = inode(cache);
    await run(file, cache);
    expect(inode(cache)).toBe(before);
    expect(fs.readdirSync(path.dirname(cache)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }, 60_000);

  it('a damaged, cut short or stale cache is not given to V8: the answer is right and the cache is made again', async () => {
    const { file, cache } = setUp('damaged');
    await run(file, cache);
    const good = fs.readFileSync(cache);
    const damaged = Buffer.from(good);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 100) ^ 0xff, damaged.length - 100);
    const cases: [string, Buffer][] = [['damaged', damaged], ['cut short', good.subarray(0, good.length >> 1)], ['header only', good.subarray(0, 28)], ['empty', Buffer.alloc(0)]];
    // Made for other source of the same length (V8 itself checks only the length): that code must not run.
    const other = setUp('other', 3);
    await run(other.file, other.cache);
    cases.push(['stale', fs.readFileSync(other.cache)]);
    for (const [name, bytes] of cases) {
      fs.writeFileSync(cache, bytes);
      const damagedInode = inode(cache);
      const after = await run(file, cache);
      expect(after, name).toEqual({ status: 'damaged', answer: expected(false) });
      // Replaced by a rename, never rewritten in place (where a concurrent start could read half of it).
      expect(inode(cache), `${name}: a new file`).not.toBe(damagedInode);
      expect((await run(file, cache)).status, `${name}: made again`).toBe('accepted');
    }
  }, 60_000);

  it('a cache V8 refuses (made under other flags) is made again', async () => {
    const { file, cache } = setUp('refused');
    expect((await run(file, cache, { flags: ['--no-opt'] })).status).toBe('absent');
    expect(await run(file, cache)).toEqual({ status: 'rejected', answer: expected(false) });
    expect((await run(file, cache)).status).toBe('accepted');
  }, 60_000);

  it('grows to hold what a later run compiles (a first idle sync, then one that reconciles)', async () => {
    const { file, cache } = setUp('grows');
    await run(file, cache);
    const small = fs.statSync(cache).size;
    const bigger = await run(file, cache, { probe: 'both' });
    expect(bigger).toEqual({ status: 'accepted', answer: expected(true) });
    expect(fs.statSync(cache).size).toBeGreaterThan(small * 1.1);
    const grown = inode(cache);
    // The longer path again, or the shorter one: nothing new, nothing written.
    expect((await run(file, cache, { probe: 'both' })).answer).toEqual(bigger.answer);
    await run(file, cache);
    expect(inode(cache)).toBe(grown);
  }, 60_000);

  it('is kept for a command the bundle says it ran, not for any other word', async () => {
    const { file, cache } = setUp('command');
    expect((await run(file, cache, { command: 'frobnicate' })).status).toBe('absent');
    expect(fs.existsSync(cache)).toBe(false);
    expect((await run(file, cache, { command: 'sync', ran: 'sync' })).status).toBe('absent');
    expect((await run(file, cache, { command: 'sync', ran: 'sync' })).status).toBe('accepted');
  }, 60_000);

  it('concurrent starts each read a whole cache or none, and leave one whole cache', async () => {
    const { file, cache } = setUp('concurrent');
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => run(file, cache, { probe: i % 2 ? 'both' : '' })));
      runs.forEach((r, i) => {
        expect(r.answer).toEqual(expected(i % 2 === 1));
        expect(['absent', 'accepted']).toContain(r.status);
      });
      expect(fs.readdirSync(path.dirname(cache)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    }
    expect((await run(file, cache, { probe: 'both' })).status).toBe('accepted');
  }, 120_000);
});
