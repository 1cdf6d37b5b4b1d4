import { randomBytes, randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/client';
import { craftZip, type CraftedEntry } from '@/lib/core/archive/testing/craft-zip';
import { deltaBytes, record, snapshotBytes } from './archives';
import { call, listFiles, startTestServer, stateFingerprint, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
const MAX_BODY = 8 * 1024 * 1024;
let t: TestServer;
let agent: string;
let unsynced: string;

const snapshotManifest = (id: string) => JSON.stringify({
  alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id, name: 'n', source_runtime: 'openclaw' }, layers: {},
});
const deltaManifest = (id: string, base: unknown = 1, changes: object = {}) => JSON.stringify({
  alf_version: '1.0.0', created_at: '2026-01-02T00:00:00Z', agent: { id, source_runtime: 'openclaw' },
  sync: { base_sequence: base, new_sequence: 0 }, changes,
});
const line = (n: number, operation = 'create', extra: object = {}) => JSON.stringify({ operation, ...record(agent, n), ...extra });
/** A delta made of the given entries plus a valid delta-manifest.json (base 1). */
const delta = (...entries: CraftedEntry[]) => craftZip([...entries, { name: 'delta-manifest.json', data: deltaManifest(agent) }]);
const snap = (...entries: CraftedEntry[]) => craftZip([...entries, { name: 'manifest.json', data: snapshotManifest(agent) }]);

interface Hostile {
  name: string;
  /** Defaults to a delta POST on base 1. */
  path?: () => string;
  method?: string;
  contentType?: string | null;
  body: () => Promise<Uint8Array | string> | Uint8Array | string;
  status: number | number[];
  message: RegExp;
}

const deltaPath = () => `/v1/agents/${agent}/deltas?base_sequence=1`;
const snapPath = () => `/agents/${agent}/snapshot`;

const CORPUS: Hostile[] = [
  { name: 'not a zip', body: () => 'hello, this is not a zip', status: 400, message: /not a ZIP/ },
  { name: 'random bytes', body: () => randomBytes(4096), status: 400, message: /ZIP/ },
  { name: 'truncated delta', body: async () => (await deltaBytes(agent, 1, 5)).subarray(0, 300), status: 400, message: /ZIP/ },
  { name: 'truncated snapshot', path: snapPath, method: 'PUT', body: async () => (await snapshotBytes(agent)).subarray(0, 500), status: 400, message: /ZIP/ },
  {
    name: 'zip bomb (entry inflating past the per-entry cap)',
    body: () => delta({ name: 'raw/openclaw/bomb.md', data: Buffer.alloc(70 * 1024 * 1024) }),
    status: 413, message: /limit/,
  },
  {
    name: 'zip bomb (declared size lies)',
    body: () => delta({ name: 'raw/openclaw/bomb.md', data: Buffer.alloc(4 * 1024 * 1024), declaredSize: 10 }),
    status: 413, message: /inflates|size/,
  },
  {
    name: 'too many entries',
    body: () => craftZip([{ name: 'raw/openclaw/a.md', data: 'x' }, { name: 'delta-manifest.json', data: deltaManifest(agent) }], { entryCount: 60_000 }),
    status: [400, 413], message: /entries/,
  },
  { name: 'zip-slip', body: () => delta({ name: 'raw/openclaw/../../etc/passwd', data: 'x' }), status: 400, message: /"\.\."/ },
  { name: 'zip-slip at the root', body: () => delta({ name: '../evil.sh', data: 'x' }), status: 400, message: /"\.\."/ },
  { name: 'absolute name', body: () => delta({ name: '/etc/passwd', data: 'x' }), status: 400, message: /absolute/ },
  { name: 'backslash name', body: () => delta({ name: 'raw\\openclaw\\x.md', data: 'x' }), status: 400, message: /backslash/ },
  { name: 'drive prefix', body: () => delta({ name: 'C:/windows/x', data: 'x' }), status: 400, message: /drive prefix/ },
  { name: 'NUL in name', body: () => delta({ name: 'raw/openclaw/a\0.md', data: 'x' }), status: 400, message: /NUL/ },
  { name: 'zip-slip in a snapshot', path: snapPath, method: 'PUT', body: () => snap({ name: 'raw/openclaw/../../x', data: 'x' }), status: 400, message: /"\.\."/ },
  { name: 'duplicate entry names', body: () => delta({ name: 'raw/openclaw/a.md', data: 'x' }, { name: 'raw/openclaw/a.md', data: 'y' }), status: 400, message: /duplicate entry/ },
  { name: 'encrypted entry', body: () => delta({ name: 'raw/openclaw/a.md', data: 'x', encrypted: true }), status: 400, message: /encrypted/ },
  { name: 'bad CRC', body: () => delta({ name: 'raw/openclaw/a.md', data: 'hello', declaredCrc: 1234 }), status: 400, message: /CRC/ },
  { name: 'delta manifest for another agent', body: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest(randomUUID()) }]), status: 400, message: /does not match agent/ },
  { name: 'snapshot manifest for another agent', path: snapPath, method: 'PUT', body: () => snapshotBytes(randomUUID()), status: 400, message: /does not match agent/ },
  { name: 'base sequence mismatch (manifest 0, query 1)', body: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest(agent, 0) }]), status: 400, message: /base_sequence/ },
  { name: 'stale base sequence', path: () => `/agents/${agent}/deltas?base_sequence=0`, body: () => deltaBytes(agent, 0, 9), status: 409, message: /latest sequence 1/ },
  { name: 'base sequence ahead of the agent', path: () => `/agents/${agent}/deltas?base_sequence=7`, body: () => deltaBytes(agent, 7, 9), status: 409, message: /latest sequence 1/ },
  { name: 'base_sequence not a number', path: () => `/agents/${agent}/deltas?base_sequence=abc`, body: () => deltaBytes(agent, 1, 9), status: 400, message: /base_sequence/ },
  { name: 'base_sequence in the manifest is a string', body: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest(agent, '1') }]), status: 400, message: /base_sequence/ },
  { name: 'duplicate record ids in a delta', body: () => delta({ name: 'memory/delta.jsonl', data: `${line(1)}\n${line(1, 'update')}\n` }), status: 400, message: /twice|duplicate/i },
  { name: 'duplicate record ids in a snapshot', path: snapPath, method: 'PUT', body: () => craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${line(1)}\n${line(1)}\n` }, { name: 'manifest.json', data: JSON.stringify({ ...JSON.parse(snapshotManifest(agent)), layers: { memory: { record_count: 2, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 2, sealed: false }] } } }) }]), status: 400, message: /twice|duplicate/i },
  { name: 'non-JSON line', body: () => delta({ name: 'memory/delta.jsonl', data: `${line(1)}\nthis is not json\n` }), status: 400, message: /JSON|line/ },
  { name: 'JSON line that is not an object', body: () => delta({ name: 'memory/delta.jsonl', data: `[1,2,3]\n` }), status: 400, message: /object|line/ },
  { name: 'record missing required fields', body: () => delta({ name: 'memory/delta.jsonl', data: `${JSON.stringify({ operation: 'create', id: randomUUID() })}\n` }), status: 400, message: /./ },
  { name: 'huge line', body: () => delta({ name: 'memory/delta.jsonl', data: `${'a'.repeat(17 * 1024 * 1024)}\n` }), status: 413, message: /line|limit/ },
  { name: 'missing delta manifest', body: () => craftZip([{ name: 'memory/delta.jsonl', data: `${line(1)}\n` }]), status: 400, message: /delta-manifest\.json/ },
  { name: 'missing snapshot manifest', path: snapPath, method: 'PUT', body: () => craftZip([{ name: 'identity.json', data: '{}' }]), status: 400, message: /manifest\.json/ },
  { name: 'manifest is not JSON', path: snapPath, method: 'PUT', body: () => craftZip([{ name: 'manifest.json', data: '{not json' }]), status: 400, message: /manifest/ },
  { name: 'snapshot sent as a delta', body: () => snapshotBytes(agent), status: 400, message: /snapshot manifest|delta-manifest/ },
  { name: 'delta sent as a snapshot', path: snapPath, method: 'PUT', body: () => deltaBytes(agent, 1, 3), status: 400, message: /manifest/ },
  { name: 'changes.memory.file names a missing entry', body: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest(agent, 1, { memory: { file: 'memory/nope.jsonl', record_count: 1 } }) }]), status: 400, message: /not in the archive/ },
  { name: 'raw path both changed and deleted', body: () => craftZip([{ name: 'raw/openclaw/a.md', data: 'x' }, { name: 'delta-manifest.json', data: deltaManifest(agent, 1, { raw: { deleted: ['raw/openclaw/a.md'] } }) }]), status: 400, message: /both changed and deleted/ },
  { name: 'wrong content type on a delta', contentType: 'application/json', body: () => deltaBytes(agent, 1, 4), status: 415, message: /application\/octet-stream/ },
  { name: 'wrong content type on a snapshot', path: snapPath, method: 'PUT', contentType: 'text/plain', body: () => snapshotBytes(agent), status: 415, message: /application\/octet-stream/ },
  { name: 'no content type', contentType: null, body: () => deltaBytes(agent, 1, 4), status: 415, message: /Content-Type/ },
  { name: 'empty body', body: () => new Uint8Array(0), status: 400, message: /empty/ },
  { name: 'empty snapshot body', path: snapPath, method: 'PUT', body: () => new Uint8Array(0), status: 400, message: /empty/ },
  { name: 'oversized body', body: () => randomBytes(MAX_BODY + 1024), status: 413, message: new RegExp(`exceeds ${MAX_BODY} bytes`) },
  { name: 'delta for an agent without a snapshot', path: () => `/agents/${unsynced}/deltas?base_sequence=0`, body: () => deltaBytes(unsynced, 0, 1), status: 409, message: /no snapshot/ },
  { name: 'oversized registration', path: () => '/agents', method: 'POST', contentType: 'application/json', body: () => JSON.stringify({ id: randomUUID(), name: 'x'.repeat(100_000), source_runtime: 'openclaw' }), status: 413, message: /exceeds/ },
];

beforeAll(async () => {
  t = await startTestServer({ maxBodyBytes: MAX_BODY });
  agent = randomUUID();
  unsynced = randomUUID();
  for (const id of [agent, unsynced]) {
    await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id, name: 'target', source_runtime: 'openclaw' }) });
  }
  expect((await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  expect((await call(`${t.url}/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(agent, 0, 1) })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

describe('hostile uploads: 4xx with a message, nothing written, server keeps serving', () => {
  it('has at least 30 cases', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = stateFingerprint(t.dataDir);
    const body = await c.body();
    const reply = await call(`${t.url}${(c.path ?? deltaPath)()}`, {
      method: c.method ?? 'POST', key: t.keyA, body,
      ...(c.contentType === null ? {} : { contentType: c.contentType ?? OCTET }),
    });
    const allowed = Array.isArray(c.status) ? c.status : [c.status];
    expect(allowed, `status ${reply.status}: ${reply.text}`).toContain(reply.status);
    expect(reply.json).toEqual({ error: expect.stringMatching(c.message), ...(reply.status === 409 && reply.json.latest_sequence !== undefined ? { latest_sequence: 1 } : {}) });
    expect(stateFingerprint(t.dataDir)).toEqual(before);
    const alive = await call(`${t.url}/agents/${agent}`, { key: t.keyA });
    expect(alive.status).toBe(200);
    expect(alive.json.latest_sequence).toBe(1);
  });

  it('a hostile archive through the presigned flow is refused at confirm and leaves nothing behind', async () => {
    const before = stateFingerprint(t.dataDir);
    const init = await call(`${t.url}/agents/${agent}/deltas/upload?base_sequence=1`, { method: 'POST', key: t.keyA });
    expect(init.status).toBe(200);
    const wrongType = await fetch(init.json.upload_url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    const put = await fetch(init.json.upload_url, { method: 'PUT', headers: { 'content-type': OCTET }, body: delta({ name: '/etc/passwd', data: 'x' }) as BodyInit });
    expect(put.status).toBe(200);
    const confirm = await call(`${t.url}/agents/${agent}/deltas/upload/${init.json.delta_id}/confirm`, { method: 'POST', key: t.keyA });
    expect(confirm.status).toBe(400);
    expect(confirm.json.error).toMatch(/absolute/);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
    expect(listFiles(`${t.dataDir}/uploads`)).toEqual([]);
  });

  it('an oversized body announced by Content-Length is refused before it is read', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${t.url}${deltaPath()}`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${t.keyA}`, 'content-type': OCTET, 'content-length': String(1024 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
      // Never send the rest: the server must answer from the header alone.
    });
    expect(status).toBe(413);
  });

  it('unknown delta operations are accepted and skipped (as the reference reader does)', async () => {
    const body = delta({ name: 'memory/delta.jsonl', data: `${line(50, 'merge')}\n${line(51)}\n` });
    const reply = await call(`${t.url}${deltaPath()}`, { method: 'POST', key: t.keyA, contentType: OCTET, body });
    expect(reply.status).toBe(201);
    expect(reply.json.sequence).toBe(2);
    const versions = openDatabase(t.dataDir).sqlite
      .prepare('SELECT record_id, op FROM record_versions WHERE agent_id = ? AND seq = 2').all(agent);
    expect(versions).toEqual([{ record_id: record(agent, 51).id, op: 'create' }]);
  });
});
