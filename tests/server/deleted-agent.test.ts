/**
 * A DELETE /agents/{id} interrupted after the agent's row is gone and before its blobs are (the
 * server killed -9 in the middle of removing them) leaves blob files no entry names. `lineage doctor`
 * lists them as the deleted agent's leftovers — not as lost uploads — and `--repair` finishes the
 * deletion: the agent is never registered again from them (it came back with no tenant, for the
 * admins to see, before). Its owner can register the same id again afterwards.
 *
 * The moment is made deterministic with the packer's own handshake (lib/ledger/pack-intents.ts): a
 * packing step announced by this (live) process on the agent's snapshot makes the delete, once its
 * marks are written, wait for it; the server is killed as soon as the marks are seen.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { listAgents, openLedger } from '@/lib/ledger';
import { announcePacking, endPacking } from '@/lib/ledger/pack-intents';
import { runCli } from '../cli/run-cli';
import { deltaBytes, snapshotBytes } from './archives';
import { call, issueKey, spawnServer, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const dataDir = tempDataDir();
let server: ChildServer | null = null;
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

const blobFiles = (agent: string) => readdirSync(path.join(dataDir, 'blobs')).filter((n) => n.startsWith(agent)).sort();

it('a delete killed while removing blobs: doctor lists the leftovers, --repair removes them and never brings the agent back', async () => {
  const key = issueKey(dataDir, 'owner');
  const agent = randomUUID();
  server = await spawnServer(dataDir);
  const register = () => call(`${server!.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'doomed', source_runtime: 'openclaw' }) });
  expect((await register()).status).toBe(201);
  const snapshot = await call(`${server.url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) });
  expect(snapshot.status).toBe(201);
  for (let seq = 1; seq <= 2; seq++) {
    const reply = await call(`${server.url}/agents/${agent}/deltas?base_sequence=${seq - 1}`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, seq - 1, seq) });
    expect(reply.status, reply.text).toBe(201);
  }
  const stored = blobFiles(agent);
  expect(stored).toHaveLength(3);

  const blobsDir = path.join(dataDir, 'blobs');
  const snapshotFile = stored.find((n) => n.endsWith('.alf'))!;
  const announcement = announcePacking(blobsDir, snapshotFile.split('~').join('/'), []);
  try {
    void call(`${server.url}/agents/${agent}`, { method: 'DELETE', key }).catch(() => undefined);
    // The row is gone (committed) once the delete marks its blobs; it now waits on the announced step.
    await expect.poll(() => existsSync(path.join(blobsDir, `${snapshotFile}.deleting`)), { timeout: 30_000 }).toBe(true);
    await server.kill();
    server = null;
  } finally {
    endPacking(announcement);
  }
  expect(blobFiles(agent).filter((n) => !n.endsWith('.deleting'))).toEqual(stored);
  // The restarted server says so, and does not take them for lost commits.
  server = await spawnServer(dataDir);
  await expect.poll(() => server!.stderr()).toContain(`WARNING: 3 blob(s) of 1 deleted agent(s) (${agent}) are left by an interrupted delete`);
  expect(server.stderr()).not.toContain('continue the ledger');
  await server.stop();
  server = null;

  const check = await runCli(['doctor', '--data', dataDir]);
  expect(check.code).toBe(1);
  expect(check.json).toMatchObject({ ok: false, damaged: [], unledgered: [], recovered: [], removed: [] });
  expect((check.json.leftovers as { agent_id: string; sequence: number; kind: string }[]).map((b) => [b.agent_id, b.sequence, b.kind]))
    .toEqual([[agent, 0, 'snapshot'], [agent, 1, 'delta'], [agent, 2, 'delta']]);
  expect(check.stderr).toContain(`left by an interrupted deletion: agent ${agent}`);
  expect(check.stderr).toContain('lineage doctor --repair removes it, finishing the deletion its owner asked for');

  const repair = await runCli(['doctor', '--repair', '--data', dataDir]);
  expect(repair.json, repair.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [], recovered: [], leftovers: [] });
  expect((repair.json.removed as { sequence: number; removed: boolean }[]).map((r) => [r.sequence, r.removed])).toEqual([[0, true], [1, true], [2, true]]);
  expect(repair.stderr).toContain(`finished an interrupted deletion: removed the blob of agent ${agent} sequence 0 (snapshot)`);
  expect(blobFiles(agent)).toEqual([]);
  expect((await runCli(['doctor', '--repair', '--data', dataDir])).json).toMatchObject({ ok: true, leftovers: [], removed: [], recovered: [] });
  // In no tenant either: not registered again (it came back with no tenant, for the local tenant and admins).
  const ledger = openLedger(dataDir);
  expect(listAgents({ ledger })).toEqual([]);
  closeDatabase(ledger.db);

  server = await spawnServer(dataDir);
  expect((await call(`${server.url}/agents/${agent}`, { key })).status).toBe(404);
  // Its owner registers the same id again and syncs it, as before any deletion.
  expect((await register()).status).toBe(201);
  const again = await call(`${server.url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) });
  expect(again.status, again.text).toBe(201);
  await server.stop();
  server = null;
  expect((await runCli(['doctor', '--data', dataDir])).json).toMatchObject({ ok: true, unledgered: [], leftovers: [] });
}, 180_000);

it('a delete whose blob removal fails answers 200 (the deletion is committed), the server warns, and doctor --repair finishes it', async () => {
  const key = issueKey(dataDir, 'second owner');
  const agent = randomUUID();
  server = await spawnServer(dataDir);
  expect((await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'refused', source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${server.url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  const [snapshotFile] = blobFiles(agent);
  // A directory where the delete writes its mark: the file system refuses it (EISDIR), nothing is removed.
  const inTheWay = path.join(dataDir, 'blobs', `${snapshotFile}.deleting`);
  mkdirSync(inTheWay);
  const deleted = await call(`${server.url}/agents/${agent}`, { method: 'DELETE', key });
  expect([deleted.status, deleted.json]).toEqual([200, { deleted: true, objects_removed: 0 }]);
  await expect.poll(() => server!.stderr()).toContain(`WARNING: agent ${agent} is deleted, but 1 of its blob(s) could not be removed`);
  expect((await call(`${server.url}/agents/${agent}`, { key })).status).toBe(404);
  await server.stop();
  server = null;
  rmSync(inTheWay, { recursive: true });

  const repair = await runCli(['doctor', '--repair', '--data', dataDir]);
  expect(repair.json, repair.stderr).toMatchObject({ ok: true, unledgered: [], recovered: [], leftovers: [] });
  expect((repair.json.removed as { agent_id: string; removed: boolean }[]).map((r) => [r.agent_id, r.removed])).toEqual([[agent, true]]);
  expect(blobFiles(agent)).toEqual([]);
}, 120_000);
