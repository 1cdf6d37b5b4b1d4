/**
 * `lineage migrate` end to end, as a user runs it: an embedded data directory (two agents, one in
 * a tenant, snapshots, deltas, rollovers) copied into the run's real PostgreSQL 15 + radosgw.
 * A first run is killed -9 while it copies blobs; the re-run completes the copy; a third run finds
 * everything there and changes nothing. The copy's index equals the source's row for row, every
 * blob in the bucket has its entry's sha256, and the tenant's API key works on the copy.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { sha256Hex } from '@/lib/core/uuid';
import { listDeletedAgents } from '@/lib/ledger/agents';
import { openLedger } from '@/lib/ledger/ledger';
import { hasExited, isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { embeddedStorage } from '@/lib/storage/embedded';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import { agentHistory } from '@/lib/storage/testing/scenario';
import { dumpEmbedded, dumpPg } from '@/lib/storage/testing/dumps';
import { freshBucket, freshDatabase, s3Env, type S3Settings, testS3Client } from '@/tests/engines/use-engines';
import { runCli } from './run-cli';

const A1 = '7b0f3c2e-1111-4a2b-8c3d-00000000e001';
const A2 = '7b0f3c2e-1111-4a2b-8c3d-00000000e002';
/** Deleted before the copy: its deletion is carried over. */
const A3 = '7b0f3c2e-1111-4a2b-8c3d-00000000e003';
/** A session ended by sign-out before the copy: still refused by the copy. */
const SIGNED_OUT = '7b0f3c2e-1111-4a2b-8c3d-0000000055e0';
const ROOT = path.resolve(__dirname, '../..');
let dir = '';
let key = '';
let tenant = '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-migrate-'));
  const storage = embeddedStorage(openLedger(dir));
  const issued = await storage.createApiKey({ name: 'team', now: new Date(0) });
  key = issued.key;
  tenant = issued.id;
  const start = Date.UTC(2026, 10, 1);
  for (const [agentId, tenantId, seed] of [[A1, tenant, 3], [A2, null, 4], [A3, tenant, 5]] as const) {
    await storage.registerAgent({ id: agentId, name: `agent ${seed}`, sourceRuntime: 'openclaw', tenantId, now: new Date(start) });
    for (const u of await agentHistory(agentId, seed, start, 24)) {
      if (u.kind === 'snapshot') await storage.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now, tenantId });
      else await storage.ingestDelta({ agentId, bytes: u.bytes, now: u.now, baseSequence: u.baseSequence, tenantId });
    }
  }
  await storage.deleteAgent({ agentId: A3, tenantId: tenant, now: new Date(start + 86_400_000) });
  // A dashboard session of the tenant's key signed out, its cookie not expired yet.
  await storage.endSession({ sessionId: SIGNED_OUT, expiresAt: Math.floor(Date.now() / 1000) + 86_400, now: new Date() });
  await storage.close();
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function targetEnv(settings: S3Settings): Record<string, string> {
  return { ...s3Env(settings), LINEAGE_SECRET: 'ef'.repeat(32), LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '' };
}

/** Starts `lineage migrate` and kills it -9 as soon as it reports its first copied blobs. */
function killedRun(args: string[], env: Record<string, string>): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'lineage.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/copied \d+ blobs/.test(stderr)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve(signal));
  });
}

describe('lineage migrate --from-data DIR --database-url … --blob-url …', () => {
  it('a run killed while copying, then re-runs: complete, verified, idempotent; the copy answers as the source', async () => {
    const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
    const env = targetEnv(settings);
    const args = ['migrate', '--from-data', dir, '--database-url', url, '--blob-url', `s3://${bucket}/lineage`];

    expect(await killedRun(args, env)).toBe('SIGKILL');
    const second = await runCli(args, env);
    expect(second.json, second.stderr).toMatchObject({ ok: true, agents: 2, api_keys: 1 });
    const entries = second.json.entries as number;
    expect(entries).toBeGreaterThan(40);
    expect(second.json.blobs_present as number).toBeGreaterThanOrEqual(10);
    expect((second.json.blobs_copied as number) + (second.json.blobs_present as number)).toBe(entries);
    expect(second.json.answers_compared as number).toBeGreaterThan(10);

    // Without LINEAGE_SECRET too: a copy signs nothing.
    const third = await runCli(args, { ...env, LINEAGE_SECRET: '' });
    expect(third.json).toEqual({ ...second.json, blobs_copied: 0, blobs_present: entries });

    const source = openLedger(dir);
    const pgDb = await openPgDatabase(url);
    const client = testS3Client(settings);
    const blobs = new S3BlobStore(client, { bucket, prefix: 'lineage' });
    const copy = scaleOutStorage({ db: pgDb, blobs, client, location: { bucket, prefix: 'lineage' } });
    try {
      expect(await dumpPg(pgDb)).toEqual(dumpEmbedded(source));
      const rows = source.db.sqlite.prepare('SELECT blob_key, sha256 FROM ledger_entries ORDER BY blob_key').all() as { blob_key: string; sha256: string }[];
      expect(await blobs.list()).toEqual(rows.map((r) => r.blob_key));
      for (const row of rows) expect(sha256Hex(await blobs.get(row.blob_key)), row.blob_key).toBe(row.sha256);
      expect(await copy.identifyKey({ key })).toMatchObject({ id: tenant });
      expect(await copy.sessionKeyIdentity({ keyId: tenant, sessionId: SIGNED_OUT })).toBeNull();
      expect(await copy.sessionKeyIdentity({ keyId: tenant, sessionId: '7b0f3c2e-1111-4a2b-8c3d-0000000055e1' })).toMatchObject({ id: tenant });
      expect((await copy.listAgents({ tenantId: tenant })).map((a) => a.id)).toEqual([A1]);
      // The deletion is carried: the copy's doctor knows A3's blob keys as a deleted agent's.
      const deleted = listDeletedAgents({ ledger: source });
      expect(deleted.map((d) => [d.id, d.tenant_id, d.blob_keys.length > 1])).toEqual([[A3, tenant, true]]);
      expect(await copy.listDeletedAgents()).toEqual(deleted);
    } finally {
      await copy.close();
      source.db.sqlite.close();
    }
  }, 240_000); // three CLI runs (the first may build the CLI bundle) on a shared machine

  it('refuses a target that already holds other data, and a missing target, changing nothing', async () => {
    const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
    const pgDb = await openPgDatabase(url);
    await pgDb.pool.query(`INSERT INTO agents (id, tenant_id, name, source_runtime, created_at) VALUES ('7b0f3c2e-1111-4a2b-8c3d-00000000e0ff', NULL, 'other', NULL, 'x')`);
    const env = targetEnv(settings);
    const refused = await runCli(['migrate', '--from-data', dir, '--database-url', url, '--blob-url', `s3://${bucket}`], env);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(refused.json.error).toMatch(/already holds agent 7b0f3c2e-1111-4a2b-8c3d-00000000e0ff, which the data directory does not/);
    expect((await pgDb.pool.query('SELECT count(*)::int AS n FROM ledger_entries')).rows[0].n).toBe(0);
    await pgDb.close();

    const noTarget = await runCli(['migrate', '--from-data', dir], env);
    expect(noTarget.json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(/^no target: pass --database-url/) });
    const halfTarget = await runCli(['migrate', '--from-data', dir, '--database-url', url], env);
    expect(halfTarget.json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringMatching(/LINEAGE_BLOB_URL is not/) });
  });

  it('a sync landing while the rows are read: the copy is the ledger as it was (one read transaction), and the verification says the source moved on', async () => {
    const small = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-migrate-race-'));
    const agentId = '7b0f3c2e-1111-4a2b-8c3d-00000000e0a1';
    const start = Date.UTC(2026, 10, 1);
    const history = await agentHistory(agentId, 6, start, 3);
    const storage = embeddedStorage(openLedger(small));
    try {
      await storage.registerAgent({ id: agentId, name: 'racing', sourceRuntime: 'openclaw', tenantId: null, now: new Date(start) });
      const ingest = async (u: (typeof history)[number]) => (u.kind === 'snapshot'
        ? storage.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now })
        : storage.ingestDelta({ agentId, bytes: u.bytes, now: u.now, baseSequence: u.baseSequence }));
      for (const u of history.slice(0, -1)) await ingest(u);
      const latest = (await storage.getAgent({ agentId }))!.latest_sequence;
      const copied = (await storage.listEntries({ agentId })).length;
      const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
      // Stopped (SIGSTOP) between reading the agents and reading the entries: the test's sync lands there.
      const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'lineage.mjs'), 'migrate', '--from-data', small, '--database-url', url, '--blob-url', `s3://${bucket}/lineage`],
        { cwd: ROOT, env: { ...process.env, ...targetEnv(settings), LINEAGE_MIGRATE_STOP_AT: 'rows' } });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await waitUntil('migrate stops between its reads', () => isStopped(child.pid!) || hasExited(child.pid!));
      expect(isStopped(child.pid!)).toBe(true);
      await ingest(history.at(-1)!);
      expect((await storage.listEntries({ agentId })).length).toBe(copied + 1);
      child.kill('SIGCONT');
      expect(await exited).toBe(1);

      const pgDb = await openPgDatabase(url);
      try {
        // One state of the ledger: the agent's latest sequence is its last copied entry's, the landed entry absent.
        const { rows } = await pgDb.pool.query('SELECT a.latest_sequence, max(e.seq) AS last, count(e.seq) AS n FROM agents a JOIN ledger_entries e ON e.agent_id = a.id GROUP BY a.id');
        expect(rows).toEqual([{ latest_sequence: latest, last: latest, n: copied }]);
      } finally {
        await pgDb.close();
      }
      // Not copied as it now is: said, as a copy made while a server writes is (stop the servers first).
      expect(JSON.parse(stdout)).toMatchObject({ ok: false, code: 'verify_failed', error: expect.stringMatching(/ledger_entries has \d+ rows in .* and \d+ in PostgreSQL/) });
    } finally {
      await storage.close();
      fs.rmSync(small, { recursive: true, force: true });
    }
  }, 120_000);
});
