import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { sha256Hex } from '@/lib/core/uuid';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { deltaBytes, snapshotBytes } from './archives';
import { call, issueKey, spawnServer, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const KILLS = 6;
const dataDir = tempDataDir();
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Pushes deltas one after another until the server dies, into `acknowledged` and `inFlight` as it
 * goes (the caller watches `acknowledged` grow); resolves with them.
 */
function streamUntilKilled(url: string, key: string, agent: string, startBase: number, counter: { n: number }) {
  const acknowledged = new Map<number, Uint8Array>();
  const inFlight = new Map<number, Uint8Array>();
  const stream = { acknowledged, ended: false, done: streamInto(url, key, agent, startBase, counter, acknowledged, inFlight) };
  void stream.done.finally(() => { stream.ended = true; });
  return stream;
}

async function streamInto(
  url: string, key: string, agent: string, startBase: number, counter: { n: number },
  acknowledged: Map<number, Uint8Array>, inFlight: Map<number, Uint8Array>,
) {
  let base = startBase;
  for (;;) {
    counter.n += 1;
    const bytes = await deltaBytes(agent, base, counter.n);
    inFlight.set(base + 1, bytes);
    try {
      const reply = await call(`${url}/v1/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body: bytes });
      expect(reply.status).toBe(201);
      expect(reply.json.sequence).toBe(base + 1);
      acknowledged.set(base + 1, bytes);
      inFlight.delete(base + 1);
      base += 1;
    } catch {
      return { acknowledged, inFlight };
    }
  }
}

it('survives SIGKILL at random moments: acknowledged deltas byte-exact, no entry without its blob, syncing continues', async () => {
  const key = issueKey(dataDir);
  server = await spawnServer(dataDir);
  const agent = randomUUID();
  await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'crashy', source_runtime: 'openclaw' }) });
  expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);

  const acknowledged = new Map<number, Uint8Array>();
  const maybe = new Map<number, Uint8Array>();
  const counter = { n: 0 };
  let latest = 0;
  for (let kill = 0; kill < KILLS; kill += 1) {
    const current = server;
    const stream = streamUntilKilled(current.url, key, agent, latest, counter);
    // Killed at a random moment after the first delta of this round is acknowledged (however slow
    // the machine is, each round acknowledges at least one before its kill).
    while (stream.acknowledged.size === 0 && !stream.ended) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 400)));
    await current.kill();
    const result = await stream.done;
    for (const [seq, bytes] of result.acknowledged) acknowledged.set(seq, bytes);
    for (const [seq, bytes] of result.inFlight) maybe.set(seq, bytes);

    server = await spawnServer(dataDir);
    const info = await call(`${server.url}/v1/agents/${agent}`, { key });
    expect(info.status).toBe(200);
    latest = info.json.latest_sequence;
    // Everything acknowledged survived; at most the one in-flight delta was committed besides.
    expect(latest).toBeGreaterThanOrEqual(Math.max(0, ...acknowledged.keys()));
    expect(latest).toBeLessThanOrEqual(Math.max(0, ...acknowledged.keys(), ...maybe.keys()));
  }

  // Syncing continues on the restarted server.
  for (let i = 0; i < 3; i += 1) {
    const bytes = await deltaBytes(agent, latest, 10_000 + i);
    const reply = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=${latest}`, { method: 'POST', key, contentType: OCTET, body: bytes });
    expect(reply.status).toBe(201);
    latest = reply.json.sequence;
    acknowledged.set(latest, bytes);
  }
  expect(acknowledged.size).toBeGreaterThan(KILLS);

  const plan = await call(`${server.url}/v1/agents/${agent}/restore`, { key });
  expect(plan.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
  for (const link of plan.json.deltas as { url: string; sequence: number }[]) {
    const got = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    const expected = acknowledged.get(link.sequence) ?? maybe.get(link.sequence);
    expect(expected, `sequence ${link.sequence} was never sent`).toBeDefined();
    expect(got.equals(Buffer.from(expected!)), `sequence ${link.sequence} differs`).toBe(true);
  }
  await server.stop();
  server = null;

  const db = openDatabase(dataDir);
  const rows = db.sqlite.prepare('SELECT blob_key, sha256 FROM ledger_entries').all() as { blob_key: string; sha256: string }[];
  expect(rows.length).toBe(latest + 1);
  // Through the store: a blob may be at rest whole or packed against the one before it.
  const store = new FsBlobStore(path.join(dataDir, 'blobs'));
  for (const row of rows) {
    expect(store.fileOf(row.blob_key), `blob ${row.blob_key}`).not.toBeNull();
    expect(sha256Hex(await store.get(row.blob_key))).toBe(row.sha256);
  }
  closeDatabase(db);
}, 180_000);
