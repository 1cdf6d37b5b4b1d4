/**
 * POST /agents refuses a name that is not a one-line display name — empty, blank, invisible, with a
 * line break or another control character, or longer than 256 characters — with a 400 that says
 * what a name must be, and registers nothing; ordinary names in any script are taken as sent.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_NAME_RULE, AGENT_RUNTIME_RULE } from '@/lib/ledger/agent-name';
import { call, listFiles, startTestServer, stateFingerprint, type TestServer } from './harness';

const register = (t: TestServer, body: unknown, prefix = '') =>
  call(`${t.url}${prefix}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify(body) });

describe('agent names at registration', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses an empty, blank or invisible name, a line break, a control character and a name over 256 characters; nothing is registered', async () => {
    const refused: [string, string][] = [
      ['', 'agent name is empty'],
      ['   ', 'agent name is blank (nothing in it is visible)'],
      ['\t \u00a0\u3000', 'agent name is blank (nothing in it is visible)'],
      ['\u200b\u200d\ufeff', 'agent name is blank (nothing in it is visible)'],
      ['atlas\nrm -rf', 'agent name holds the control character U+000A at character 6'],
      ['atlas\r\n', 'agent name holds the control character U+000D at character 6'],
      ['a\tb', 'agent name holds the control character U+0009 at character 2'],
      ['bell\u0007', 'agent name holds the control character U+0007 at character 5'],
      ['del\u007f', 'agent name holds the control character U+007F at character 4'],
      ['c1\u0085', 'agent name holds the control character U+0085 at character 3'],
      ['😀line\u2028two', 'agent name holds the control character U+2028 at character 6'],
      ['n'.repeat(257), 'agent name is 257 characters long'],
    ];
    const before = stateFingerprint(t.dataDir);
    for (const prefix of ['', '/v1']) {
      for (const [name, why] of refused) {
        const reply = await register(t, { id: randomUUID(), name, source_runtime: 'openclaw' }, prefix);
        expect(reply.status, JSON.stringify(name)).toBe(400);
        expect(reply.json, JSON.stringify(name)).toEqual({ error: `${why}: ${AGENT_NAME_RULE}` });
      }
    }
    expect(stateFingerprint(t.dataDir)).toEqual(before);
    expect((await call(`${t.url}/agents`, { key: t.keyA })).json).toEqual({ agents: [] });
  });


  it('refuses a source_runtime with a control character or over 256 characters; none at all is fine', async () => {
    const before = stateFingerprint(t.dataDir);
    for (const [runtime, why] of [['open\nclaw', 'holds the control character U+000A at character 5'], ['r'.repeat(5000), 'is 5000 characters long']] as const) {
      const reply = await register(t, { id: randomUUID(), name: 'ok', source_runtime: runtime });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: `agent source_runtime ${why}: ${AGENT_RUNTIME_RULE}` });
    }
    expect(stateFingerprint(t.dataDir)).toEqual(before);
    for (const runtime of [null, undefined, '']) expect((await register(t, { id: randomUUID(), name: 'ok', source_runtime: runtime })).status).toBe(201);
  });

  it('a name that is not a string is a 400 naming the field', async () => {
    const reply = await register(t, { id: randomUUID(), name: 42, source_runtime: 'openclaw' });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/^invalid agent: name: /);
  });

  it('takes ordinary names as sent: any script, emoji, inner spaces, 256 characters', async () => {
    for (const name of ['Atlas ops', 'مساعد', 'エージェント', ' padded ', '🤖 bot', 'n'.repeat(256), '😀'.repeat(256)]) {
      const id = randomUUID();
      const reply = await register(t, { id, name, source_runtime: 'openclaw' });
      expect(reply.status, name).toBe(201);
      expect(reply.json, name).toMatchObject({ id, name });
    }
  });
});

describe('an agent named in the path in upper case or padded', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('its presigned upload confirms, and deleting it removes its pending uploads', async () => {
    const id = randomUUID();
    expect((await register(t, { id, name: 'case', source_runtime: 'openclaw' })).status).toBe(201);
    const padded = `%20${id.toUpperCase()}%20`;
    const init = await call(`${t.url}/v1/agents/${padded}/snapshot/upload`, { method: 'POST', key: t.keyA, contentType: 'application/json' });
    expect(init.status).toBe(200);
    const confirm = await call(`${t.url}/v1/agents/${id}/snapshot/upload/${init.json.snapshot_id}/confirm`, { method: 'POST', key: t.keyA });
    // Found (no bytes PUT yet), not "no pending snapshot upload".
    expect(confirm.json.error).toMatch(/has no bytes yet/);
    expect(listFiles(path.join(t.dataDir, 'uploads'))).toHaveLength(1);
    expect((await call(`${t.url}/v1/agents/${padded}`, { method: 'DELETE', key: t.keyA })).json).toEqual({ deleted: true, objects_removed: 0 });
    expect(listFiles(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });
});
