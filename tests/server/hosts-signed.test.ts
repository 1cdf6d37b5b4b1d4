/**
 * §2 and §6 of issue 18 on the protocol server: a foreign Host is a 421 (DNS rebinding), signed URLs
 * are built from the public URL (never the request's Host), and a signed URL dies with its key (403).
 * Also §10: an agent id another tenant holds is a 409 `agent_id_taken` that says what to do.
 */
import { embeddedLedger } from '@/lib/storage/embedded';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '@/lib/server/api-keys';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { snapshotBytes } from './archives';
import { raw } from './dashboard-http';
import { call, stateFingerprint, tempDataDir } from './harness';

const OCTET = 'application/octet-stream';
let server: LineageServer;
let dataDir: string;
let key: string;
let keyId: string;
const agentId = randomUUID();

beforeAll(async () => {
  dataDir = tempDataDir();
  server = await createLineageServer({
    dataDir, port: 0, ui: false, log: () => undefined,
    publicUrl: 'https://lineage.example', allowedHosts: ['lineage.test'],
  });
  const issued = createApiKey({ db: embeddedLedger(server.service.storage).db, name: 'a', now: new Date() });
  key = issued.key;
  keyId = issued.id;
  expect((await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agentId, name: 'mine', source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${server.url}/agents/${agentId}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agentId) })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const local = (path: string) => new URL(path, server.url).toString();
const signedPath = (url: string) => { const u = new URL(url); return `${u.pathname}${u.search}`; };

describe('Host header (421)', () => {
  it('answers loopback names, the bind address, the public URL host and --allowed-hosts; 421 for any other', async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'lineage.example', 'lineage.test:8443', 'LINEAGE.TEST']) {
      const reply = await raw(local('/agents'), { headers: { host, authorization: `Bearer ${key}` } });
      expect(reply.status, host).toBe(200);
    }
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example', 'lineage.example.evil', 'a b', 'localhost@evil.example']) {
      const reply = await raw(local('/agents'), { headers: { host, authorization: `Bearer ${key}` } });
      expect(reply.status, host).toBe(421);
      expect(JSON.parse(reply.text).error).toMatch(/--allowed-hosts/);
    }
  });

  it('a foreign Host gets nothing written either', async () => {
    const before = stateFingerprint(dataDir);
    const reply = await raw(local(`/agents/${agentId}`), { method: 'DELETE', headers: { host: 'evil.example', authorization: `Bearer ${key}` } });
    expect(reply.status).toBe(421);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });
});

describe('signed URLs', () => {
  it('are built from the public URL, whatever Host the request named', async () => {
    for (const host of ['lineage.test', `127.0.0.1:${new URL(server.url).port}`]) {
      const reply = await raw(local(`/agents/${agentId}/snapshot`), { headers: { host, authorization: `Bearer ${key}` } });
      expect(JSON.parse(reply.text).snapshot_url).toMatch(/^https:\/\/lineage\.example\/v1\/blobs\//);
      const upload = await raw(local(`/agents/${agentId}/snapshot/upload`), { method: 'POST', headers: { host, authorization: `Bearer ${key}` } });
      expect(JSON.parse(upload.text).upload_url).toMatch(/^https:\/\/lineage\.example\/v1\/uploads\//);
    }
  });

  it('die with their key: download and upload URLs are 403 once it is revoked', async () => {
    const snap = await call(`${server.url}/agents/${agentId}/snapshot`, { key });
    const download = local(signedPath(snap.json.snapshot_url));
    const init = await call(`${server.url}/agents/${agentId}/snapshot/upload`, { method: 'POST', key });
    const upload = local(signedPath(init.json.upload_url));
    expect(new URL(download).searchParams.get('kid')).toBe(keyId);
    expect((await call(download)).status).toBe(200);
    // A kid swapped for another key's breaks the signature.
    const other = createApiKey({ db: embeddedLedger(server.service.storage).db, name: 'b', now: new Date() });
    expect((await call(download.replace(keyId, other.id))).status).toBe(403);

    expect(revokeApiKey({ db: embeddedLedger(server.service.storage).db, id: keyId })).toBe(true);
    const before = stateFingerprint(dataDir);
    const gone = await call(download);
    expect(gone.status).toBe(403);
    expect(gone.json.error).toMatch(/revoked/);
    const put = await call(upload, { method: 'PUT', body: await snapshotBytes(agentId), contentType: OCTET });
    expect(put.status).toBe(403);
    expect(put.json.error).toMatch(/revoked/);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });
});

describe('agent-id collisions', () => {
  it('registering an id another key holds is 409 agent_id_taken naming the way out; the owner\'s own re-register stays a plain 409', async () => {
    const db = embeddedLedger(server.service.storage).db;
    const owner = createApiKey({ db, name: 'owner', now: new Date() }).key;
    const late = createApiKey({ db, name: 'late', now: new Date() }).key;
    const id = randomUUID();
    const body = JSON.stringify({ id, name: 'squatted', source_runtime: 'openclaw' });
    expect((await call(`${server.url}/agents`, { method: 'POST', key: owner, contentType: 'application/json', body })).status).toBe(201);
    const taken = await call(`${server.url}/agents`, { method: 'POST', key: late, contentType: 'application/json', body });
    expect(taken.status).toBe(409);
    expect(taken.json.code).toBe('agent_id_taken');
    expect(taken.json.error).toMatch(/another API key/);
    expect(taken.json.error).toMatch(/lineage sync --agent-id/);
    expect(taken.text).not.toContain('squatted');
    const again = await call(`${server.url}/agents`, { method: 'POST', key: owner, contentType: 'application/json', body });
    expect(again.status).toBe(409);
    expect(again.json.code).toBeUndefined();
  });
});
