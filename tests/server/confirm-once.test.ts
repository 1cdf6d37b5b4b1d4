/**
 * A presigned confirm is idempotent (issue 18 §6): concurrent confirms of one upload make one ledger
 * entry and all answer with its sequence; a confirm after that answers the same.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/client';
import { deltaBytes, snapshotBytes } from './archives';
import { call, startTestServer, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
let t: TestServer;
let agent: string;

const entries = () => openDatabase(t.dataDir).sqlite
  .prepare('SELECT seq, kind FROM ledger_entries WHERE agent_id = ? ORDER BY seq, kind').all(agent);

beforeAll(async () => {
  t = await startTestServer();
  agent = randomUUID();
  await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'c', source_runtime: 'openclaw' }) });
});
afterAll(async () => {
  await t.close();
});

async function upload(initPath: string, body: Uint8Array): Promise<string> {
  const init = await call(`${t.url}${initPath}`, { method: 'POST', key: t.keyA });
  expect(init.status, init.text).toBe(200);
  const put = await fetch(init.json.upload_url, { method: 'PUT', headers: { 'content-type': OCTET }, body: body as BodyInit });
  expect(put.status).toBe(200);
  return init.json.snapshot_id ?? init.json.delta_id;
}

describe('concurrent confirms of one presigned upload', () => {
  it('snapshot: three concurrent confirms, one entry, one sequence; a later confirm answers the same', async () => {
    const id = await upload(`/agents/${agent}/snapshot/upload`, await snapshotBytes(agent));
    const confirmPath = `${t.url}/agents/${agent}/snapshot/upload/${id}/confirm`;
    const replies = await Promise.all([1, 2, 3].map(() => call(confirmPath, { method: 'POST', key: t.keyA })));
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(replies[0]!.json.sequence).toBe(0);
    expect(entries()).toEqual([{ seq: 0, kind: 'snapshot' }]);
    const again = await call(confirmPath, { method: 'POST', key: t.keyA });
    expect(again.status).toBe(201);
    expect(again.text).toBe(replies[0]!.text);
    expect(entries()).toEqual([{ seq: 0, kind: 'snapshot' }]);
    // Another tenant still cannot see it.
    expect((await call(confirmPath, { method: 'POST', key: t.keyB })).status).toBe(404);
  });

  it('delta: five concurrent confirms, one entry at base + 1, all answer with it', async () => {
    const id = await upload(`/agents/${agent}/deltas/upload?base_sequence=0`, await deltaBytes(agent, 0, 1));
    const confirmPath = `${t.url}/agents/${agent}/deltas/upload/${id}/confirm`;
    const replies = await Promise.all([1, 2, 3, 4, 5].map(() => call(confirmPath, { method: 'POST', key: t.keyA })));
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(replies.map((r) => r.json.sequence)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(replies.map((r) => r.json.delta_id)).size).toBe(1);
    expect(entries()).toEqual([{ seq: 0, kind: 'snapshot' }, { seq: 1, kind: 'delta' }]);
  });
});
