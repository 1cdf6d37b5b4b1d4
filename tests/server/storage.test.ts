/**
 * Errors a user can act on (issue 18 §7): a full disk is a 507 saying so, a read-only data directory
 * still serves reads and refuses writes naming the directory, a damaged blob names its agent and
 * sequence (`blob_corrupt`) in the protocol, the dashboard API and the CLI, and an upload while
 * another process holds the database for a rebuild is a 503 with Retry-After.
 */
import { useProcessStorage } from '@/lib/storage/open';
import { embeddedLedger } from '@/lib/storage/embedded';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { createLineageServer } from '@/lib/server/http-server';
import { createApiKey } from '@/lib/server/api-keys';
import { runCli } from '../cli/run-cli';
import { deltaBytes, snapshotBytes } from './archives';
import { call, listFiles, stateFingerprint, tempDataDir } from './harness';
import { mountReadOnly, mountTinyDisk } from './mounts';
import { guardHeaders } from '@/lib/server/scope-header';

const OCTET = 'application/octet-stream';
const undo: (() => void)[] = [];
afterAll(() => {
  for (const u of undo.reverse()) u();
});

async function serve(dataDir: string) {
  const server = await createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined });
  const key = createApiKey({ db: embeddedLedger(server.service.storage).db, name: 't', now: new Date() }).key;
  return { server, key, url: server.url };
}

async function registerAndSync(url: string, key: string, agent: string): Promise<void> {
  expect((await call(`${url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  expect((await call(`${url}/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 0, 1) })).status).toBe(201);
}

describe('a full disk', () => {
  it('is a 507 with a message, nothing stored, and the server keeps serving', async (ctx) => {
    const dataDir = tempDataDir();
    const unmount = mountTinyDisk(dataDir, 3 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
    undo.push(unmount!);
    const { server, key, url } = await serve(dataDir);
    const agent = randomUUID();
    await registerAndSync(url, key, agent);
    const before = stateFingerprint(dataDir);
    const big = await deltaBytes(agent, 1, 2, { rawBytes: 4 * 1024 * 1024 });
    const full = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body: big });
    expect(full.status, full.text).toBe(507);
    expect(full.json).toEqual({ code: 'disk_full', error: expect.stringMatching(new RegExp(`no space left on the disk holding ${dataDir}`)) });
    expect(stateFingerprint(dataDir)).toEqual(before);
    expect(listFiles(path.join(dataDir, 'blobs')).filter((f) => f.includes('.tmp-'))).toEqual([]);
    const small = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 1, 3) });
    expect(small.status, small.text).toBe(201);
    await server.close();
  });
});

describe('a read-only data directory', () => {
  it('serves reads (database opened read-only) and refuses writes naming the directory', async (ctx) => {
    const dataDir = tempDataDir();
    const agent = randomUUID();
    const first = await serve(dataDir);
    await registerAndSync(first.url, first.key, agent);
    await first.server.close();
    const unmount = mountReadOnly(dataDir);
    if (!unmount) ctx.skip();
    undo.push(unmount!);
    expect(() => fs.writeFileSync(path.join(dataDir, 'probe'), '')).toThrow(/EROFS/);
    const { server, url } = await serve(dataDir).catch(async () => ({ ...(await serveWithoutNewKey(dataDir)) }));
    const info = await call(`${url}/agents/${agent}`, { key: first.key });
    expect(info.status, info.text).toBe(200);
    expect(info.json.latest_sequence).toBe(1);
    const plan = await call(`${url}/agents/${agent}/restore`, { key: first.key });
    expect(plan.status).toBe(200);
    expect((await fetch(plan.json.snapshot.url)).status).toBe(200);
    const put = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key: first.key, contentType: OCTET, body: await deltaBytes(agent, 1, 2) });
    expect(put.status, put.text).toBe(503);
    expect(put.json.code).toBe('read_only');
    expect(put.json.error).toContain(dataDir);
    await server.close();
    // A read-only command of the CLI works too.
    const keys = await runCli(['keys', 'list', '--data', dataDir]);
    expect(keys.json.ok, keys.stdout).toBe(true);
    // A write through the CLI names the directory.
    const create = await runCli(['keys', 'create', '--name', 'x', '--data', dataDir]);
    expect(create.json.ok).toBe(false);
    expect(String(create.json.error)).toContain(dataDir);
  });
});

/** A server on a read-only directory cannot issue a key: it is started with the key made before. */
describe('a read-only data directory whose word index was never filled', () => {
  it('is refused as not migrated, in words, rather than searched without its index', async (ctx) => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    await registerAndSync(first.url, first.key, randomUUID());
    await first.server.close();
    // As migration 0015 leaves a database until its first writable open fills the index.
    const raw = new Database(path.join(dataDir, 'lineage.db'));
    raw.exec('CREATE TABLE search_words_backfill (from_id integer NOT NULL); INSERT INTO search_words_backfill VALUES (0)');
    raw.close();
    const unmount = mountReadOnly(dataDir);
    if (!unmount) ctx.skip();
    undo.push(unmount!);
    expect(() => openDatabase(dataDir)).toThrow(/read-only: it needs 1 migration\(s\), and .* is read-only/);
  });
});

async function serveWithoutNewKey(dataDir: string) {
  const server = await createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined });
  return { server, url: server.url, key: '' };
}

describe('a damaged blob', () => {
  it('is blob_corrupt naming agent and sequence in the protocol, the dashboard API and the CLI', async () => {
    const dataDir = tempDataDir();
    const { server, key, url } = await serve(dataDir);
    const agent = randomUUID();
    await registerAndSync(url, key, agent);
    const plan = await call(`${url}/agents/${agent}/restore`, { key });
    const { sqlite } = openDatabase(dataDir);
    const deltaBlob = sqlite.prepare("SELECT blob_key FROM ledger_entries WHERE agent_id = ? AND seq = 1").pluck().get(agent) as string;
    const file = new FsBlobStore(path.join(dataDir, 'blobs')).fileOf(deltaBlob)!;
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 30] = bytes[bytes.length - 30]! ^ 0xff;
    fs.writeFileSync(file, bytes);
    const message = new RegExp(`the delta of agent ${agent} at sequence 1 is damaged`);

    const blob = await call(plan.json.deltas[0].url);
    expect(blob.status).toBe(500);
    expect(blob.json).toMatchObject({ code: 'blob_corrupt', agent_id: agent, sequence: 1, error: expect.stringMatching(message) });

    process.env.LINEAGE_DATA = dataDir;
    useProcessStorage(server.service.storage);
    const { GET } = await import('@/app/api/agents/[id]/workspace/download/route');
    const alf = await GET(new Request(`http://localhost/api/agents/${agent}/workspace/download?format=alf`, { headers: guardHeaders(undefined) }), { params: Promise.resolve({ id: agent }) });
    expect(alf.status).toBe(500);
    expect(await alf.json()).toMatchObject({ code: 'blob_corrupt', agent_id: agent, sequence: 1, error: expect.stringMatching(message) });

    await server.close();
    const out = path.join(tempDataDir(), 'out');
    const restored = await runCli(['restore', '--data', dataDir, '--agent', agent, '--out', out]);
    expect(restored.json).toMatchObject({ ok: false, code: 'blob_corrupt', error: expect.stringMatching(message) });
    // A missing blob is the same error.
    fs.rmSync(file);
    const missing = await runCli(['restore', '--data', dataDir, '--agent', agent, '--out', `${out}2`]);
    expect(missing.json).toMatchObject({ ok: false, code: 'blob_corrupt', error: expect.stringMatching(/at sequence 1 is damaged: its blob .* is missing/) });
  });
});

describe('an upload while another process rebuilds the index', () => {
  it('gets a 503 with Retry-After, at once while the rebuild marker is held, and when the lock is held', async () => {
    const dataDir = tempDataDir();
    const { server, key, url } = await serve(dataDir);
    const agent = randomUUID();
    await registerAndSync(url, key, agent);
    // The marker `lineage index --rebuild` holds, owned by a live process.
    const rebuilder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(dataDir, 'rebuilding.pid'), `${rebuilder.pid}\n`);
    const during = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 1, 2) });
    expect(during.status, during.text).toBe(503);
    expect(during.headers.get('retry-after')).toBe('5');
    expect(during.json).toEqual({ code: 'busy', error: expect.stringMatching(/being rebuilt \(pid \d+\); retry/) });
    rebuilder.kill('SIGKILL');
    await new Promise((r) => rebuilder.once('exit', r));
    // No marker, but another connection holds the write lock (what a rebuild's transaction does).
    const other = new Database(path.join(dataDir, 'lineage.db'));
    other.exec('BEGIN IMMEDIATE');
    const locked = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 1, 3) });
    other.exec('ROLLBACK');
    other.close();
    expect(locked.status, locked.text).toBe(503);
    expect(locked.headers.get('retry-after')).toBe('5');
    // The marker of a dead process does not block; the upload goes through afterwards.
    const after = await call(`${url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 1, 4) });
    expect(after.status, after.text).toBe(201);
    await server.close();
    closeDatabase(openDatabase(dataDir));
  });
});
