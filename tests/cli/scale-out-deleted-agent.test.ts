/**
 * On PostgreSQL + S3, an agent delete whose object removal the bucket refuses (a bucket policy
 * denying DeleteObject on the run's real radosgw) has already removed the agent's rows: its objects
 * stay in the bucket with no entry. `lineage doctor` lists them as the deleted agent's leftovers, not
 * as lost uploads, and `--repair` finishes the deletion instead of registering the agent again with
 * no tenant (what it did before). The owner can register the same id again afterwards.
 */
import { DeleteBucketPolicyCommand, PutBucketPolicyCommand } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, type S3Settings, scaleOutEnv, testS3Client } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from '../server/archives';
import { runCli } from './run-cli';

const AGENT = '7b0f3c2e-6666-4a2b-8c3d-0000000000d1';
const AGAIN = '7b0f3c2e-6666-4a2b-8c3d-0000000000d2';
const EARLY = '7b0f3c2e-6666-4a2b-8c3d-0000000000d3';
const BIN = path.resolve(__dirname, '../../bin/lineage.mjs');
let tmp = '';
let bucket = '';
let settings: S3Settings;
let env: Record<string, string> = {};
let storage: LineageStorage;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-deleted-'));
  const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
  ({ bucket, settings } = fresh);
  env = scaleOutEnv(url, bucket, settings, { LINEAGE_SECRET: 'cd'.repeat(32), LINEAGE_DATA: path.join(tmp, 'no-data-here') });
  storage = await openStorage(storageConfigFrom(env));
});

afterAll(async () => {
  await storage?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** Runs `task` while the bucket refuses every DeleteObject (a bucket policy). */
async function withDeletesDenied(task: () => Promise<void>): Promise<void> {
  const client = testS3Client(settings);
  await client.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${bucket}/*` }],
  }) }));
  try {
    await task();
  } finally {
    await client.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
    client.destroy();
  }
}

it('a delete the bucket refused halfway: doctor lists the objects as leftovers, --repair removes them, the agent stays deleted', async () => {
  const { id: tenant } = await storage.createApiKey({ name: 'owner', now: new Date() });
  const register = () => storage.registerAgent({ id: AGENT, name: 'doomed', sourceRuntime: 'openclaw', tenantId: tenant, now: new Date() });
  expect(await register()).not.toBe('exists');
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date(), tenantId: tenant });
  await storage.ingestDelta({ agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(AGENT, 0, 1), now: new Date(), tenantId: tenant });
  const keys = (await storage.listEntries({ agentId: AGENT })).map((e) => e.blob_key);

  await withDeletesDenied(async () => {
    // The deletion is committed: answered as done, with the objects it could remove (none).
    expect(await storage.deleteAgent({ agentId: AGENT, tenantId: tenant })).toEqual({ deleted: true, objects_removed: 0 });
  });
  expect(await storage.getAgent({ agentId: AGENT })).toBeNull();
  expect(await storage.blobs.list(`${AGENT}/`)).toEqual(keys.sort());

  const check = await runCli(['doctor'], env);
  expect(check.code).toBe(1);
  expect(check.json).toMatchObject({ ok: false, damaged: [], unledgered: [], recovered: [], removed: [] });
  expect((check.json.leftovers as { key: string; sequence: number }[]).map((b) => [b.sequence, b.key])).toEqual([[0, keys[0]], [1, keys[1]]]);
  expect(check.stderr).toContain(`left by an interrupted deletion: agent ${AGENT}`);

  // While the bucket still refuses: nothing registered again, the objects listed as not removed.
  await withDeletesDenied(async () => {
    const refused = await runCli(['doctor', '--repair'], env);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, recovered: [], unledgered: [] });
    expect((refused.json.removed as { removed: boolean }[]).map((r) => r.removed)).toEqual([false, false]);
    expect(refused.stderr).toContain(`could not finish the deletion of agent ${AGENT}`);
  });
  expect(await storage.getAgent({ agentId: AGENT })).toBeNull();

  const repair = await runCli(['doctor', '--repair'], env);
  expect(repair.json, repair.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [], recovered: [], leftovers: [] });
  expect((repair.json.removed as { sequence: number; removed: boolean }[]).map((r) => [r.sequence, r.removed])).toEqual([[0, true], [1, true]]);
  expect(await storage.blobs.list(`${AGENT}/`)).toEqual([]);
  expect(await storage.listAgents({})).toEqual([]);

  // Its owner registers the same id again and syncs it, as before any deletion; doctor finds nothing.
  expect(await register()).toMatchObject({ id: AGENT, tenant_id: tenant });
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date(), tenantId: tenant });
  expect((await runCli(['doctor'], env)).json).toMatchObject({ ok: true, unledgered: [], leftovers: [] });
}, 180_000);

/** Whether a session other than `client`'s waits on a lock whose query contains `what` (pg_stat_activity, read afresh). */
async function someoneWaits(client: pg.Client, what: string): Promise<boolean> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'",
    [what]);
  return rows[0]!.n > 0;
}

/** `lineage doctor --repair` as a process that stops itself (SIGSTOP) once it has looked at a leftover again, before its DeleteObject. */
function doctorStoppedAtRecheck(): { doctor: ChildProcess; exited: Promise<number | null>; report(): Record<string, unknown> } {
  const doctor = spawn(process.execPath, [BIN, 'doctor', '--repair'], { env: { ...process.env, ...env, LINEAGE_DOCTOR_STOP_AT: 'recheck' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  doctor.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  doctor.stderr!.resume();
  const exited = new Promise<number | null>((resolve) => doctor.once('exit', resolve));
  return { doctor, exited, report: () => JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown> };
}

/** Waits until `task` settles (true) or a session other than `watcher`'s waits on a lock (false). */
async function settlesOrWaits(watcher: pg.Client, task: Promise<unknown>): Promise<boolean> {
  const settled = task.then(() => 'settled' as const, () => 'settled' as const);
  for (;;) {
    if (await Promise.race([settled, new Promise<'looking'>((r) => setTimeout(() => r('looking'), 20))]) === 'settled') return true;
    if (await someoneWaits(watcher, '')) return false;
  }
}

it('doctor --repair stopped between its look and the DeleteObject: the owner registering the id again and uploading the same object waits, and the acknowledged object stays', async () => {
  const { id: tenant } = await storage.createApiKey({ name: 'owner-again', now: new Date() });
  const register = () => storage.registerAgent({ id: AGAIN, name: 'again', sourceRuntime: 'openclaw', tenantId: tenant, now: new Date() });
  // The same bytes each time: the same object key (`<agent>/<sequence>-<sha256 prefix>.alf`).
  const bytes = await snapshotBytes(AGAIN);
  const upload = () => storage.ingestSnapshot({ agentId: AGAIN, bytes, now: new Date(), tenantId: tenant });
  expect(await register()).not.toBe('exists');
  const { blobKey: key } = await upload();
  await withDeletesDenied(async () => {
    expect(await storage.deleteAgent({ agentId: AGAIN, tenantId: tenant })).toEqual({ deleted: true, objects_removed: 0 });
  });
  expect(await storage.blobs.list(`${AGAIN}/`)).toEqual([key]);

  const { doctor, exited, report } = doctorStoppedAtRecheck();
  const watcher = new pg.Client(env.LINEAGE_DATABASE_URL);
  await watcher.connect();
  try {
    await waitUntil('the doctor stops between its look and its DeleteObject', () => isStopped(doctor.pid!));
    // The owner registers the id again: it waits for the doctor's lock, or (were there none) goes through at once.
    const registering = register();
    const waited = !(await settlesOrWaits(watcher, registering));
    // Without the lock the same bytes land at the same key now, acknowledged, before the doctor goes on.
    if (!waited) await upload();
    doctor.kill('SIGCONT');
    await exited;
    expect(await registering).not.toBe('exists');
    if (waited) await upload();
  } finally {
    if (doctor.exitCode === null) doctor.kill('SIGKILL');
    await watcher.end();
  }
  // The acknowledged upload's entry names that key, and its object is there and whole.
  const [entry] = await storage.listEntries({ agentId: AGAIN });
  expect(entry!.blob_key).toBe(key);
  expect(await storage.readEntryBytes({ entry: entry! })).toEqual(bytes);
  // The doctor removed the leftover (before the upload wrote the same key again) and exited ok.
  expect(report()).toMatchObject({ ok: true, removed: [expect.objectContaining({ key, removed: true })] });
  expect(doctor.exitCode).toBe(0);
  expect((await runCli(['doctor'], env)).json).toMatchObject({ ok: true, unledgered: [], leftovers: [] });
}, 180_000);

it('registered again before the repair: doctor --repair stopped between its look and the DeleteObject holds the agent\'s upload of the same object until it is done, and the acknowledged object stays', async () => {
  const { id: tenant } = await storage.createApiKey({ name: 'owner-early', now: new Date() });
  const register = () => storage.registerAgent({ id: EARLY, name: 'early', sourceRuntime: 'openclaw', tenantId: tenant, now: new Date() });
  const bytes = await snapshotBytes(EARLY);
  const upload = () => storage.ingestSnapshot({ agentId: EARLY, bytes, now: new Date(), tenantId: tenant });
  expect(await register()).not.toBe('exists');
  const { blobKey: key } = await upload();
  await withDeletesDenied(async () => {
    expect(await storage.deleteAgent({ agentId: EARLY, tenantId: tenant })).toEqual({ deleted: true, objects_removed: 0 });
  });
  // Its owner registers it again before anyone runs doctor --repair: the old object stays a leftover.
  expect(await register()).not.toBe('exists');
  expect((await storage.listDeletedAgents()).find((d) => d.id === EARLY)?.blob_keys).toEqual([key]);

  const { doctor, exited, report } = doctorStoppedAtRecheck();
  const watcher = new pg.Client(env.LINEAGE_DATABASE_URL);
  await watcher.connect();
  try {
    await waitUntil('the doctor stops between its look and its DeleteObject', () => isStopped(doctor.pid!));
    // The same bytes again, at the same sequence: the same key. The upload waits on the agent's row, or (were it not held) lands now.
    const uploading = upload();
    await settlesOrWaits(watcher, uploading);
    doctor.kill('SIGCONT');
    await exited;
    expect((await uploading).blobKey).toBe(key);
  } finally {
    if (doctor.exitCode === null) doctor.kill('SIGKILL');
    await watcher.end();
  }
  const [entry] = await storage.listEntries({ agentId: EARLY });
  expect(entry!.blob_key).toBe(key);
  expect(await storage.readEntryBytes({ entry: entry! })).toEqual(bytes);
  expect(report()).toMatchObject({ ok: true, removed: [expect.objectContaining({ key, removed: true })] });
  expect((await runCli(['doctor'], env)).json).toMatchObject({ ok: true, unledgered: [], leftovers: [] });
}, 180_000);
