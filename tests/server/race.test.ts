import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '@/db/client';
import { embeddedStorageFor } from '@/lib/storage/open';
import { deltaBytes, snapshotBytes } from './archives';
import { call, startTestServer, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
const CLIENTS = 24;
const ROUNDS = 5;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const storage = () => embeddedStorageFor(t.dataDir);

function blobKeys(agentId: string): string[] {
  return (openDatabase(t.dataDir).sqlite.prepare('SELECT blob_key FROM ledger_entries WHERE agent_id = ? ORDER BY blob_key').pluck().all(agentId) as string[]);
}

function ledgerRows(agentId: string): { seq: number; kind: string }[] {
  return openDatabase(t.dataDir).sqlite
    .prepare('SELECT seq, kind FROM ledger_entries WHERE agent_id = ? ORDER BY seq, kind').all(agentId) as { seq: number; kind: string }[];
}

it(`${CLIENTS} clients pushing on the same base: exactly one 201, the rest 409 + X-Latest-Sequence, for ${ROUNDS} rounds`, async () => {
  const id = randomUUID();
  await call(`${t.url}/v1/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id, name: 'race', source_runtime: 'openclaw' }) });
  expect((await call(`${t.url}/v1/agents/${id}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id) })).status).toBe(201);
  for (let round = 0; round < ROUNDS; round += 1) {
    const base = round;
    // Distinct bytes per client, so a winner can be told apart and no blob is shared.
    const bodies = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => deltaBytes(id, base, round * 100 + c)));
    const replies = await Promise.all(bodies.map((body) =>
      call(`${t.url}/v1/agents/${id}/deltas?base_sequence=${base}`, { method: 'POST', key: t.keyA, contentType: OCTET, body })));
    const created = replies.filter((r) => r.status === 201);
    const conflicts = replies.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(CLIENTS - 1);
    expect(created[0]!.json.sequence).toBe(base + 1);
    for (const conflict of conflicts) {
      // Every loser is told the winner's sequence: the next round starts only once all have answered.
      expect(conflict.headers.get('x-latest-sequence')).toBe(String(base + 1));
      expect(conflict.json.error).toEqual(expect.any(String));
    }
    const rows = ledgerRows(id);
    expect(rows).toEqual([{ seq: 0, kind: 'snapshot' }, ...Array.from({ length: round + 1 }, (_, i) => ({ seq: i + 1, kind: 'delta' }))]);
    // The stored delta is the winner's bytes.
    const winner = bodies[replies.indexOf(created[0]!)]!;
    const plan = await call(`${t.url}/v1/agents/${id}/restore`, { key: t.keyA });
    const last = plan.json.deltas[plan.json.deltas.length - 1];
    expect(last.sequence).toBe(base + 1);
    expect(Buffer.from(await (await fetch(last.url)).arrayBuffer()).equals(Buffer.from(winner))).toBe(true);
    // The losers' blobs are gone: the blob store holds exactly the ledger's blobs.
    expect(await storage().blobs.list(`${id}/`)).toEqual(blobKeys(id));
  }
  const info = await call(`${t.url}/v1/agents/${id}`, { key: t.keyA });
  expect(info.json.latest_sequence).toBe(ROUNDS);
});
