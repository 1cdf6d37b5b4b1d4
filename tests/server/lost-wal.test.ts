/**
 * The ledger and its blobs agree, or say so (issue 18 §8): with the server killed after 30
 * acknowledged deltas and lineage.db-wal deleted (crash plus operator error), the restarted server
 * reports the blobs that continue the ledger without an entry, keeps every blob, and
 * `lineage doctor --repair` re-ingests them in order: every acknowledged delta is back, byte-exact.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli';
import { deltaBytes, snapshotBytes } from './archives';
import { call, issueKey, spawnServer, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const DELTAS = 30;
const dataDir = tempDataDir();
let server: ChildServer | null = null;
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

const blobs = () => readdirSync(path.join(dataDir, 'blobs')).sort();

it('a deleted lineage.db-wal: reported on start, no blob deleted, doctor --repair recovers every acknowledged delta', async () => {
  const key = issueKey(dataDir);
  const agent = randomUUID();
  server = await spawnServer(dataDir);
  await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'wal', source_runtime: 'openclaw' }) });
  expect((await call(`${server.url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  await server.stop(); // a clean stop: the registration and the snapshot are in lineage.db itself
  server = await spawnServer(dataDir);
  const acknowledged = new Map<number, Buffer>();
  for (let seq = 1; seq <= DELTAS; seq++) {
    const bytes = await deltaBytes(agent, seq - 1, seq);
    const reply = await call(`${server.url}/agents/${agent}/deltas?base_sequence=${seq - 1}`, { method: 'POST', key, contentType: OCTET, body: bytes });
    expect(reply.status, reply.text).toBe(201);
    acknowledged.set(seq, Buffer.from(bytes));
  }
  await server.kill();
  server = null;
  expect(existsSync(path.join(dataDir, 'lineage.db-wal'))).toBe(true);
  rmSync(path.join(dataDir, 'lineage.db-wal'));
  rmSync(path.join(dataDir, 'lineage.db-shm'), { force: true });
  const before = blobs();
  expect(before.length).toBe(DELTAS + 1);

  server = await spawnServer(dataDir);
  const latest = (await call(`${server.url}/agents/${agent}`, { key })).json.latest_sequence as number;
  const lost = DELTAS - latest;
  expect(lost).toBeGreaterThan(0);
  await expect.poll(() => server!.stderr()).toMatch(new RegExp(`WARNING: ${lost} stored upload\\(s\\) of 1 agent\\(s\\) \\(${agent}\\)[^\\n]*lineage doctor --repair`));
  await server.stop();
  server = null;
  expect(blobs()).toEqual(before);

  const check = await runCli(['doctor', '--data', dataDir]);
  expect(check.code).toBe(1);
  expect(check.json).toMatchObject({ ok: false, damaged: [], recovered: [] });
  expect((check.json.unledgered as { sequence: number; chains: boolean }[]).map((b) => [b.sequence, b.chains]))
    .toEqual(Array.from({ length: lost }, (_, i) => [latest + i + 1, true]));

  const repair = await runCli(['doctor', '--repair', '--data', dataDir]);
  expect(repair.json, repair.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [] });
  expect((repair.json.recovered as { sequence: number; recovered: boolean }[]).map((r) => [r.sequence, r.recovered]))
    .toEqual(Array.from({ length: lost }, (_, i) => [latest + i + 1, true]));
  expect(blobs()).toEqual(before);

  server = await spawnServer(dataDir);
  expect(server.stderr()).not.toMatch(/WARNING/);
  const plan = await call(`${server.url}/agents/${agent}/restore`, { key });
  expect(plan.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual(Array.from({ length: DELTAS }, (_, i) => i + 1));
  for (const link of plan.json.deltas as { url: string; sequence: number }[]) {
    const got = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    expect(got.equals(acknowledged.get(link.sequence)!), `sequence ${link.sequence}`).toBe(true);
  }
  // The history index has them too.
  const sequences = await call(`${server.url}/agents/${agent}`, { key });
  expect(sequences.json.latest_sequence).toBe(DELTAS);
  await server.stop();
  server = null;
}, 180_000);
