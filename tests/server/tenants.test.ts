import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deltaBytes, snapshotBytes } from './archives';
import { call, startTestServer, stateFingerprint, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
let t: TestServer;
let agentId: string;

beforeAll(async () => {
  t = await startTestServer();
  agentId = randomUUID();
  const reg = await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: agentId, name: 'mine', source_runtime: 'openclaw' }) });
  expect(reg.status).toBe(201);
  expect((await call(`${t.url}/agents/${agentId}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(agentId) })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

/** Every agent route, as (method, path suffix, body factory). */
const AGENT_ROUTES: [string, string, (() => Promise<{ body?: Uint8Array | string; contentType?: string }>)][] = [
  ['GET', '', async () => ({})],
  ['DELETE', '', async () => ({})],
  ['PUT', '/snapshot', async () => ({ body: await snapshotBytes(agentId), contentType: OCTET })],
  ['GET', '/snapshot', async () => ({})],
  ['POST', '/snapshot/upload', async () => ({ contentType: 'application/json' })],
  ['POST', `/snapshot/upload/${randomUUID()}/confirm`, async () => ({})],
  ['POST', '/deltas?base_sequence=0', async () => ({ body: await deltaBytes(agentId, 0, 1), contentType: OCTET })],
  ['GET', '/deltas?since=0', async () => ({})],
  ['POST', '/deltas/upload?base_sequence=0', async () => ({ contentType: 'application/json' })],
  ['POST', `/deltas/upload/${randomUUID()}/confirm`, async () => ({})],
  ['GET', '/restore', async () => ({})],
  ['GET', '/restore?up_to_sequence=0', async () => ({})],
  ['GET', '/memory', async () => ({})],
];

describe.each(['', '/v1'])('tenant isolation under "%s"', (prefix) => {
  it.each(AGENT_ROUTES)('%s /agents/{id}%s is 404 for another tenant and changes nothing', async (method, suffix, make) => {
    const before = stateFingerprint(t.dataDir);
    const reply = await call(`${t.url}${prefix}/agents/${agentId}${suffix}`, { method, key: t.keyB, ...(await make()) });
    expect(reply.status).toBe(404);
    expect(reply.json.error).toEqual(expect.any(String));
    expect(JSON.stringify(reply.json)).not.toContain('mine');
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it.each(AGENT_ROUTES)('%s /agents/{id}%s is 401 without a key or with an unknown key', async (method, suffix, make) => {
    const before = stateFingerprint(t.dataDir);
    for (const key of [null, 'alf_sk_not-a-real-key']) {
      const reply = await call(`${t.url}${prefix}/agents/${agentId}${suffix}`, { method, key, ...(await make()) });
      expect(reply.status).toBe(401);
      expect(reply.json.error).toMatch(/API key|Authorization/);
    }
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it('registering an id owned by another tenant is 409 without revealing the agent', async () => {
    const reply = await call(`${t.url}${prefix}/agents`, { method: 'POST', key: t.keyB, contentType: 'application/json', body: JSON.stringify({ id: agentId, name: 'x', source_runtime: 'openclaw' }) });
    expect(reply.status).toBe(409);
    expect(Object.keys(reply.json).sort()).toEqual(['code', 'error']);
    expect(reply.json.code).toBe('agent_id_taken');
    expect(reply.text).not.toContain('mine');
  });

  it('GET /agents is 401 without a key, malformed header, or unknown key', async () => {
    expect((await call(`${t.url}${prefix}/agents`)).status).toBe(401);
    expect((await call(`${t.url}${prefix}/agents`, { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await call(`${t.url}${prefix}/agents`, { key: 'alf_sk_unknown' })).status).toBe(401);
    const listB = await call(`${t.url}${prefix}/agents`, { key: t.keyB });
    expect(listB.json.agents.map((a: { id: string }) => a.id)).not.toContain(agentId);
  });
});

describe('signed URLs are bound to their tenant\'s agent', () => {
  it('a confirm by another tenant of my pending upload is 404', async () => {
    const init = await call(`${t.url}/agents/${agentId}/snapshot/upload`, { method: 'POST', key: t.keyA });
    expect(init.status).toBe(200);
    const other = randomUUID();
    await call(`${t.url}/agents`, { method: 'POST', key: t.keyB, contentType: 'application/json', body: JSON.stringify({ id: other, name: 'b', source_runtime: 'openclaw' }) });
    const steal = await call(`${t.url}/agents/${other}/snapshot/upload/${init.json.snapshot_id}/confirm`, { method: 'POST', key: t.keyB });
    expect(steal.status).toBe(404);
  });
});
