/**
 * What a protocol error repeats of a caller's input: an id, a path or an upload id of any length
 * comes back as its first 80 characters and how many more there were (lib/core/echo.ts), a short
 * one exactly as sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBytes } from './archives';
import { call, startTestServer, type TestServer } from './harness';

const LONG = 'q'.repeat(10_000);
const SHOWN = `${'q'.repeat(80)}… (9920 more characters)`;
const JSON_TYPE = 'application/json';
const OCTET = 'application/octet-stream';

describe('errors that echo what the caller sent', () => {
  let t: TestServer;
  const agent = randomUUID();
  beforeAll(async () => {
    t = await startTestServer();
    expect((await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: JSON_TYPE, body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) })).status).toBe(201);
    expect((await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a 10,000-character agent id in the path is cut to 80 characters in every route\'s 404', async () => {
    for (const prefix of ['', '/v1']) {
      const base = `${t.url}${prefix}/agents/${LONG}`;
      const replies = [
        await call(base, { key: t.keyA }),
        await call(base, { method: 'DELETE', key: t.keyA }),
        await call(`${base}/snapshot`, { key: t.keyA }),
        await call(`${base}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: 'x' }),
        await call(`${base}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: 'x' }),
        await call(`${base}/deltas`, { key: t.keyA }),
        await call(`${base}/restore`, { key: t.keyA }),
        await call(`${base}/memory`, { key: t.keyA }),
        await call(`${base}/snapshot/upload`, { method: 'POST', key: t.keyA, contentType: JSON_TYPE }),
        await call(`${base}/snapshot/upload/${randomUUID()}/confirm`, { method: 'POST', key: t.keyA, contentType: JSON_TYPE }),
      ];
      for (const reply of replies) expect(reply.json).toEqual({ error: `agent ${SHOWN} not found` });
    }
  });

  it('a short unknown id is still echoed whole', async () => {
    expect((await call(`${t.url}/agents/not-a-uuid`, { key: t.keyA })).json).toEqual({ error: 'agent not-a-uuid not found' });
  });

  it('a long upload id is cut the same, an unknown path or a wrong method\'s path at 200 characters', async () => {
    const confirm = await call(`${t.url}/agents/${agent}/snapshot/upload/${LONG}/confirm`, { method: 'POST', key: t.keyA, contentType: JSON_TYPE });
    expect(confirm.json).toEqual({ error: `no pending snapshot upload ${SHOWN} for agent ${agent}` });
    // A path gets 200 characters: a real route's path (two UUIDs and more) is echoed whole.
    const unknown = await call(`${t.url}/${LONG}`, { key: t.keyA });
    expect(unknown.json).toEqual({ error: `no such endpoint: GET /${'q'.repeat(199)}… (9801 more characters)` });
    const method = await call(`${t.url}/v1/agents/${LONG}`, { method: 'PATCH', key: t.keyA });
    expect(method.status).toBe(405);
    expect(method.json.error).toBe(`method PATCH not allowed on /v1/agents/${'q'.repeat(189)}… (9811 more characters)`);
    const real = `/v1/agents/${agent}/snapshot/upload/${randomUUID()}/confirm`;
    expect((await call(`${t.url}${real}`, { method: 'GET', key: t.keyA })).json.error).toBe(`method GET not allowed on ${real}`);
  });

  it('a registration with a long id that is not a UUID says so in 80 characters, and registers nothing', async () => {
    const reply = await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: JSON_TYPE, body: JSON.stringify({ id: LONG, name: 'n', source_runtime: 'openclaw' }) });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: `agent id must be a UUID, got "${SHOWN}"` });
    expect((await call(`${t.url}/agents`, { key: t.keyA })).json.agents.map((a: { id: string }) => a.id)).toEqual([agent]);
  });

  it('a base_sequence of any length is cut too', async () => {
    const reply = await call(`${t.url}/agents/${agent}/deltas?base_sequence=${'9'.repeat(500)}`, { method: 'POST', key: t.keyA, contentType: OCTET, body: 'x' });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: `base_sequence must be a non-negative integer, got "${'9'.repeat(80)}… (420 more characters)"` });
  });
});
