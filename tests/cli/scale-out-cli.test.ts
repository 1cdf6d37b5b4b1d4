/**
 * Every `lineage` command that takes `--data` also works on the scale-out settings (issue 21 §2),
 * run as a user runs them (the real bin, a child process) against the run's real PostgreSQL 15 +
 * radosgw: sync twice, restore byte-exact, sync --rebase from another machine, search, index
 * --rebuild to the same index, doctor finding a blob taken out of the bucket and re-ingesting an
 * upload whose commit is missing, keys round trip — and every bad or half setting refused in words
 * (exit 1, no stack) before anything opens. A flag wins over its variable.
 */
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { sha256Hex } from '@/lib/core/uuid';
import { parseDay } from '@/lib/demo/clock';
import { seedDemo } from '@/lib/demo/seed';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { dumpPg } from '@/lib/storage/testing/dumps';
import type { LineageStorage } from '@/lib/storage/types';
import { readTree } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, s3Env, type S3Settings, testS3Client } from '@/tests/engines/use-engines';
import { deltaBytes } from '../server/archives';
import { runCli } from './run-cli';

const SECRET = 'ab'.repeat(32);
let tmp = '';
let databaseUrl = '';
let bucket = '';
let settings: S3Settings;
/** The settings a deployment sets, but for the two URLs (given as flags or variables per call). */
let aws: Record<string, string> = {};
/** Both URLs as variables. */
let env: Record<string, string> = {};
let flags: string[] = [];
let storage: LineageStorage;
let db: PgLineageDb;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-scale-cli-'));
  const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
  databaseUrl = url;
  ({ bucket, settings } = fresh);
  aws = {
    ...s3Env(settings), LINEAGE_SECRET: SECRET,
    // The embedded data directory these commands must not touch: it is never created.
    LINEAGE_DATA: path.join(tmp, 'no-data-here'), LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '',
  };
  env = { ...aws, LINEAGE_DATABASE_URL: databaseUrl, LINEAGE_BLOB_URL: `s3://${bucket}/svc` };
  flags = ['--database-url', databaseUrl, '--blob-url', `s3://${bucket}/svc`];
  storage = await openStorage(storageConfigFrom(env));
  db = await openPgDatabase(databaseUrl);
});

afterAll(async () => {
  await storage?.close();
  await db?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const SECTION = (n: number) => `## Fact ${n}\nThe relay for site ${n} is 10.44.${n}.7 and its owner is team ${n}.\n`;

describe('the CLI on PostgreSQL + S3', () => {
  let agentId = '';
  const workspace = () => path.join(tmp, 'ws');
  const home = (name: string) => ({ ALF_HOME: path.join(tmp, name) });

  it('sync twice (flags, then variables), restore --out byte-exact, sync --rebase from another machine', async () => {
    await fs.mkdir(path.join(workspace(), 'memory'), { recursive: true });
    await fs.writeFile(path.join(workspace(), 'MEMORY.md'), `# Memory\n\n${SECTION(1)}\n${SECTION(2)}`);
    const first = await runCli(['sync', '-w', workspace(), ...flags], { ...aws, ...home('alf-a') });
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ ok: true, sequence: 0 });
    agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;

    await fs.writeFile(path.join(workspace(), 'memory', '2026-05-02.md'), `# Day\n\n${SECTION(3)}`);
    const second = await runCli(['sync', '-w', workspace()], { ...env, ...home('alf-a') });
    expect(second.json).toMatchObject({ ok: true, sequence: 1 });
    const idle = await runCli(['sync', '-w', workspace()], { ...env, ...home('alf-a') });
    expect(idle.json).toMatchObject({ ok: true, no_changes: true });

    // The ledger is PostgreSQL's and the blobs the bucket's; nothing went to a data directory.
    expect((await storage.listEntries({ agentId })).map((e) => [e.seq, e.kind])).toEqual([[0, 'snapshot'], [1, 'delta']]);
    await expect(fs.stat(env.LINEAGE_DATA!)).rejects.toThrow();

    const out = path.join(tmp, 'restored');
    const restored = await runCli(['restore', '--out', out, '--agent', agentId, ...flags], { ...aws, ...home('alf-r') });
    expect(restored.json).toMatchObject({ ok: true, sequence: 1 });
    expect(await readTree(out)).toEqual(await readTree(workspace()));
    const atZero = path.join(tmp, 'restored-0');
    await runCli(['restore', '--out', atZero, '--agent', agentId, '--at-sequence', '0'], { ...env, ...home('alf-r') });
    expect([...(await readTree(atZero)).keys()]).toEqual(['MEMORY.md']);

    // Another machine with this workspace and no sync state takes the ledger's latest as its base.
    const other = await runCli(['sync', '--rebase', '-w', workspace()], { ...env, ...home('alf-b') });
    expect(other.json).toMatchObject({ ok: true, sequence: 1 });
    expect((await runCli(['sync', '-w', workspace()], { ...env, ...home('alf-b') })).json).toMatchObject({ ok: true, no_changes: true });
  });

  it('search answers as the storage does', async () => {
    const found = await runCli(['search', '10.44.3.7', ...flags], aws);
    expect(found.code).toBe(0);
    expect(found.json).toEqual(JSON.parse(JSON.stringify(await storage.search({ q: '10.44.3.7' }))));
    expect(found.json).toMatchObject({ first: { sequence: 1 } });
    const unknown = await runCli(['search', 'relay', '--agent', '7b0f3c2e-0000-4a2b-8c3d-00000000dead'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.json).toMatchObject({ ok: false, code: 'agent_not_found' });
  });

  it('index --rebuild: the same index, rebuilt from the bucket', async () => {
    const before = await dumpPg(db);
    const rebuilt = await runCli(['index', '--rebuild'], env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.json).toEqual({ ok: true, entries: 2, record_versions: (before.record_versions as unknown[]).length });
    expect(await dumpPg(db)).toEqual(before);
  });

  it('doctor: a blob removed from the bucket is found (and refuses the rebuild); put back, all is well', async () => {
    expect((await runCli(['doctor', ...flags], aws)).json).toEqual({ ok: true, damaged: [], unledgered: [], recovered: [], leftovers: [], removed: [] });
    const [, delta] = await storage.listEntries({ agentId });
    const bytes = await storage.blobs.get(delta!.blob_key);
    const s3 = testS3Client(settings);
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `svc/blobs/${delta!.blob_key}` }));
      const before = await dumpPg(db);
      const found = await runCli(['doctor', '--repair'], env);
      expect(found.code).toBe(1);
      expect(found.json).toMatchObject({ ok: false, unledgered: [], recovered: [] });
      expect(found.json.damaged).toEqual([{
        agent_id: agentId, sequence: 1, kind: 'delta', blob_key: delta!.blob_key, problem: expect.stringContaining(`its blob ${delta!.blob_key} is missing`),
      }]);
      // Repair deletes and rewrites nothing: the object stays missing.
      expect(await storage.blobs.exists(delta!.blob_key)).toBe(false);
      const refused = await runCli(['index', '--rebuild'], env);
      expect(refused.code).toBe(1);
      expect(refused.json).toMatchObject({ ok: false, code: 'blob_corrupt' });
      expect(refused.json.error).toContain(`agent ${agentId} sequence 1 (delta, blob ${delta!.blob_key})`);
      expect(await dumpPg(db)).toEqual(before);
    } finally {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `svc/blobs/${delta!.blob_key}`, Body: bytes }));
      s3.destroy();
    }
    expect((await runCli(['doctor'], env)).json).toMatchObject({ ok: true, damaged: [] });
  });

  it('doctor --repair re-ingests an upload whose commit is missing (it continues the ledger) and keeps one that does not', async () => {
    // What a process killed between its blob write and its commit leaves (or a database restored
    // from a dump older than the bucket): a blob at latest + 1 with no entry.
    const lost = await deltaBytes(agentId, 1, 7);
    const lostKey = `${agentId}/2-${sha256Hex(lost).slice(0, 16)}.alf-delta`;
    const stray = await deltaBytes(agentId, 4, 8);
    const strayKey = `${agentId}/5-${sha256Hex(stray).slice(0, 16)}.alf-delta`;
    await storage.blobs.put(lostKey, lost);
    await storage.blobs.put(strayKey, stray);

    const found = await runCli(['doctor'], env);
    expect(found.code).toBe(1);
    expect(found.json.unledgered).toEqual([
      { agent_id: agentId, sequence: 2, kind: 'delta', key: lostKey, chains: true },
      { agent_id: agentId, sequence: 5, kind: 'delta', key: strayKey, chains: false },
    ]);
    expect(found.stderr).toContain('doctor --repair');

    const repaired = await runCli(['doctor', '--repair', ...flags], aws);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.json).toMatchObject({ ok: true, damaged: [], recovered: [{ agent_id: agentId, sequence: 2, kind: 'delta', recovered: true }] });
    expect(repaired.json.unledgered).toEqual([{ agent_id: agentId, sequence: 5, kind: 'delta', key: strayKey, chains: false }]);
    const entry = (await storage.listEntries({ agentId })).at(-1)!;
    expect([entry.seq, entry.blob_key, entry.sha256]).toEqual([2, lostKey, sha256Hex(lost)]);
    expect(await storage.blobs.exists(strayKey)).toBe(true);
  });

  it('keys create, list and revoke', async () => {
    const created = await runCli(['keys', 'create', '--name', 'ops', '--admin', ...flags], aws);
    expect(created.json).toMatchObject({ ok: true, name: 'ops', admin: true });
    const { key, id } = created.json as { key: string; id: string };
    expect(await storage.identifyKey({ key })).toMatchObject({ id });
    const listed = await runCli(['keys', 'list'], env);
    expect(listed.json).toEqual({ ok: true, keys: [expect.objectContaining({ id, name: 'ops', admin: true, agents: [] })], agents_of_revoked_keys: [] });
    expect((await runCli(['keys', 'revoke', id], env)).json).toEqual({ ok: true, revoked: id, agents: [], agents_to: null });
    expect(await storage.identifyKey({ key })).toBeNull();
    const again = await runCli(['keys', 'revoke', id, ...flags], aws);
    expect(again.code).toBe(1);
    expect(again.json).toMatchObject({ ok: false, code: 'key_not_found' });
    expect((await runCli(['keys', 'list'], env)).json).toEqual({ ok: true, keys: [], agents_of_revoked_keys: [] });
  });

  it('a flag wins over its variable', async () => {
    const run = await runCli(['keys', 'list', ...flags], { ...aws, LINEAGE_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LINEAGE_BLOB_URL: 's3://not-this-one' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual({ ok: true, keys: [], agents_of_revoked_keys: [] });
  });
});

/** `lineage start` (the real bin) until it prints its URL; `stop` ends it with SIGTERM. */
async function startCli(args: string[], vars: Record<string, string>): Promise<{ url: string; stderr: () => string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/lineage.mjs'), 'start', ...args], { env: { ...process.env, ...vars } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`lineage start exited (${code}): ${stderr}`)));
  });
  return { url, stderr: () => stderr, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

describe('demo and start on PostgreSQL + S3', () => {
  it('demo seeds an empty scale-out storage with the fleet the data directory gets, once; start serves it', async () => {
    const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
    const vars = { ...aws, LINEAGE_DATABASE_URL: url, LINEAGE_BLOB_URL: `s3://${fresh.bucket}/demo` };
    const seeded = await runCli(['demo', '--today', '2026-05-10'], vars);
    expect(seeded.code, seeded.stderr).toBe(0);
    const local = await seedDemo({ dataDir: path.join(tmp, 'demo-data'), today: parseDay('2026-05-10') });
    if (!local.seeded) throw new Error('the embedded demo did not seed');
    // The same fleet, sync for sync (agent ids are minted per workspace, and these live elsewhere).
    const summary = (r: typeof local) => ({ syncs: r.syncs, agents: r.agents.map(({ name, runtime, syncs }) => ({ name, runtime, syncs })) });
    expect(summary(seeded.json as typeof local)).toEqual(summary(local));
    const other = await openStorage(storageConfigFrom(vars));
    try {
      const agents = await other.listAgents({});
      expect(agents.map((a) => a.name).sort()).toEqual(local.agents.map((a) => a.name).sort());
      let entries = 0;
      for (const agent of agents) entries += (await other.listEntries({ agentId: agent.id })).length;
      expect(entries).toBe(local.syncs);
      expect((await runCli(['demo'], vars)).json).toEqual({ ok: true, seeded: false, reason: 'the storage already has agents' });
      await expect(fs.stat(aws.LINEAGE_DATA!)).rejects.toThrow();

      // start on the same settings: nothing to seed, it serves the scale-out storage (protocol only here).
      const { key } = await other.createApiKey({ name: 'start', now: new Date(), admin: true });
      const started = await startCli(['--port', '0'], { ...vars, LINEAGE_NO_UI: '1' });
      try {
        expect(started.stderr()).not.toMatch(/seeding/);
        expect(started.stderr()).toContain(`blobs s3://${fresh.bucket}/demo`);
        // The demo's agents are the local owner's (no key reaches them over the protocol); an agent
        // registered through the started server lands in the scale-out storage.
        const id = '7b0f3c2e-5555-4a2b-8c3d-00000000beef';
        const reply = await fetch(`${started.url}/v1/agents`, {
          method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id, name: 'via start', source_runtime: 'openclaw' }),
        });
        expect(reply.status).toBe(201);
        expect(await other.getAgent({ agentId: id })).toMatchObject({ name: 'via start' });
      } finally {
        await started.stop();
      }
    } finally {
      await other.close();
    }
  }, 600_000);
});

describe('bad or half settings', () => {
  const commands: [string, string[]][] = [
    // Paths that cannot be written: were a setting let through, nothing would be made in the repository.
    ['sync', ['sync', '-w', '/nonexistent/ws']], ['sync --rebase', ['sync', '--rebase', '-w', '/nonexistent/ws']],
    ['restore', ['restore', '--out', '/nonexistent/out', '--agent', 'a']],
    ['index', ['index', '--rebuild']], ['doctor', ['doctor']], ['doctor --repair', ['doctor', '--repair']], ['keys create', ['keys', 'create']],
    ['keys list', ['keys', 'list']], ['keys revoke', ['keys', 'revoke', 'x']], ['search', ['search', 'relay']], ['demo', ['demo']],
    ['start', ['start', '--port', '0']], ['serve', ['serve', '--no-ui', '--port', '0']],
  ];
  const bad: [string, Record<string, string>, string[], RegExp][] = [
    ['a database URL alone', {}, ['--database-url', 'postgres://u@127.0.0.1:1/x'], /^--database-url is set but LINEAGE_BLOB_URL is not/],
    ['a blob URL alone (variable)', { LINEAGE_BLOB_URL: 's3://b-1' }, [], /^LINEAGE_BLOB_URL is set but LINEAGE_DATABASE_URL is not/],
    ['no secret', { LINEAGE_SECRET: '' }, ['--database-url', 'postgres://u@127.0.0.1:1/x', '--blob-url', 's3://b-1'], /^LINEAGE_SECRET is required/],
    ['a malformed blob URL', {}, ['--database-url', 'postgres://u@127.0.0.1:1/x', '--blob-url', 'https://b-1'], /^--blob-url must look like s3:\/\/bucket/],
  ];

  // Each command gets a half setting and a bad one, in turn, so that every setting meets several commands.
  it.each(commands.map(([name, args], i) => [name, args, [bad[i % 2]!, bad[2 + (i % 2)]!]] as const))('%s: refused in words, exit 1, no stack, nothing opened', async (name, args, cases) => {
    const dataDir = path.join(tmp, `never-${name.replace(/\W/g, '-')}`);
    for (const [what, vars, extra, message] of cases) {
      const run = await runCli([...args, ...extra], { ...aws, ...vars, LINEAGE_DATA: dataDir, ALF_HOME: path.join(tmp, 'bad-home') });
      expect(run.code, `${what}: ${run.stderr}`).toBe(1);
      expect(run.json, what).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(message) });
      expect(run.json.hint, what).toMatch(/Outgrowing one machine/);
      expect(run.stderr, what).not.toMatch(/\n\s+at /);
      await expect(fs.stat(dataDir), what).rejects.toThrow();
    }
  });

  it('--server with a database URL: refused, naming both', async () => {
    const run = await runCli(['sync', '-w', '/nonexistent/ws', '--server', 'http://127.0.0.1:2', '--key', 'k', '--database-url', 'postgres://u@h/x'], aws);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ ok: false, code: 'invalid_argument', error: 'use either --server or --database-url/--blob-url, not both' });
  });

  it('a database that cannot be reached: storage_unavailable in words, no password, no stack', async () => {
    const run = await runCli(['keys', 'list', '--database-url', 'postgres://u:hunter2@127.0.0.1:1/lineage', '--blob-url', 's3://b-1'], aws);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ ok: false, code: 'storage_unavailable', error: expect.stringMatching(/^cannot open the scale-out storage \(database 127\.0\.0\.1:1\/lineage, blobs s3:\/\/b-1\)/) });
    expect(run.stdout + run.stderr).not.toMatch(/hunter2/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
