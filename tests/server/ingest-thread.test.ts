/**
 * Large uploads are parsed, checked and indexed on the ingest thread (issue 18 §5), with the same
 * answers as on the main thread: 201s with their sequences, 400s with their messages, 409s with
 * X-Latest-Sequence. The main connection's group commits show where the work ran.
 */
import { embeddedLedger } from '@/lib/storage/embedded';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { groupCommitStats } from '@/lib/ledger/group-commit';
import { deltaBytes, record, snapshotBytes } from './archives';
import { call, startTestServer, stateFingerprint, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
let t: TestServer;
const commitsHere = () => groupCommitStats(embeddedLedger(t.server.service.storage).db.sqlite).commits;

beforeAll(async () => {
  t = await startTestServer({ ingestThreadMinBytes: 64 * 1024 });
});
afterAll(async () => {
  await t.close();
});

async function register(): Promise<string> {
  const id = randomUUID();
  await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id, name: 'big', source_runtime: 'openclaw' }) });
  return id;
}

describe('the ingest thread', () => {
  it('takes uploads from the threshold up, with the same answers; smaller ones stay here', async () => {
    const agent = await register();
    const before = commitsHere();
    const big = await snapshotBytes(agent, { records: 2000, rawBytes: 128 * 1024 });
    const snap = await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: big });
    expect(snap.status, snap.text).toBe(201);
    expect(snap.json.sequence).toBe(0);
    const bigDelta = await call(`${t.url}/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(agent, 0, 1, { rawBytes: 128 * 1024 }) });
    expect(bigDelta.status, bigDelta.text).toBe(201);
    expect(bigDelta.json.sequence).toBe(1);
    expect(commitsHere()).toBe(before); // committed on the thread's own connection
    const stale = await call(`${t.url}/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(agent, 0, 2, { rawBytes: 128 * 1024 }) });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('x-latest-sequence')).toBe('1');
    const small = await call(`${t.url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(agent, 1, 3) });
    expect(small.status).toBe(201);
    expect(commitsHere()).toBe(before + 1);
    // The index has what the thread wrote.
    const info = await call(`${t.url}/agents/${agent}`, { key: t.keyA });
    expect(info.json.latest_sequence).toBe(2);
  });

  it('refuses a hostile large upload with its message, nothing written', async () => {
    const agent = await register();
    const deep = `${JSON.stringify({ ...record(agent, 1) }).slice(0, -1)},"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const manifest = JSON.stringify({ alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id: agent, name: 'n', source_runtime: 'openclaw' }, layers: {} });
    const body = craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${deep}\n` }, { name: 'raw/openclaw/pad.bin', data: randomBytes(100_000) }, { name: 'manifest.json', data: manifest }]);
    expect(body.byteLength).toBeGreaterThan(64 * 1024);
    const before = stateFingerprint(t.dataDir);
    const reply = await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.error).toMatch(/nested deeper than 64 levels/);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it('holds this thread\'s commits while it writes: a small upload beside a large one both succeed', async () => {
    const [a, b] = [await register(), await register()];
    expect((await call(`${t.url}/agents/${b}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(b) })).status).toBe(201);
    const large = call(`${t.url}/agents/${a}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(a, { records: 20_000 }) });
    const small = call(`${t.url}/agents/${b}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(b, 0, 1) });
    const [bigReply, smallReply] = await Promise.all([large, small]);
    expect(bigReply.status, bigReply.text).toBe(201);
    expect(smallReply.status, smallReply.text).toBe(201);
    expect(smallReply.json.sequence).toBe(1);
  });

  it('works for a server started outside the package: the thread finds its packages from the package', async () => {
    const cwd = process.cwd();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-elsewhere-'));
    process.chdir(elsewhere);
    let other: TestServer | null = null;
    try {
      // A new server: a new database handle, so a new thread, started from here.
      other = await startTestServer({ ingestThreadMinBytes: 64 * 1024 });
      const id = randomUUID();
      await call(`${other.url}/agents`, { method: 'POST', key: other.keyA, contentType: 'application/json', body: JSON.stringify({ id, name: 'elsewhere', source_runtime: 'openclaw' }) });
      const before = groupCommitStats(embeddedLedger(other.server.service.storage).db.sqlite).commits;
      const snap = await call(`${other.url}/agents/${id}/snapshot`, { method: 'PUT', key: other.keyA, contentType: OCTET, body: await snapshotBytes(id, { records: 2000, rawBytes: 128 * 1024 }) });
      expect(snap.status, snap.text).toBe(201);
      expect(groupCommitStats(embeddedLedger(other.server.service.storage).db.sqlite).commits).toBe(before);
    } finally {
      process.chdir(cwd);
      await other?.close();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
