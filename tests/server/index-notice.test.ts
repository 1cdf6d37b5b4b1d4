/**
 * A served data directory whose agent has a pending entry (a local sync's large upload, its fold left
 * to a catch-up) with a damaged blob: every read passes over that entry (lib/storage/embedded.ts
 * `indexCaughtUp`) and the agent's pages answered from an index lacking it and all after it, without a
 * word. The agent's JSON (GET /api/agents/{id}) now carries `index_notice` — the sequence the history
 * shown stops at, the entry stored and not folded, why, and what the operator runs — and every page of
 * the agent shows it under its header; to the agent's tenant only. A real `lineage serve` with its
 * dashboard, the fold on its ingest thread (pending-index.ts `catchUpIndex` notes the failure there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { openLedger } from '@/lib/ledger';
import type { FsBlobStore } from '@/lib/ledger/blob-store';
import { tenantForKey } from '@/lib/server/api-keys';
import { raw, signIn } from './dashboard-http';
import { issueKey, spawnServe, tempDataDir, type ChildServer } from './harness';

const BROKEN = '7b0f3c2e-9999-4a2b-8c3d-0000000000a1';
const OTHERS = '7b0f3c2e-9999-4a2b-8c3d-0000000000b1';

let dataDir: string;
let server: ChildServer;
let keys: { a: string; b: string };
let last: { seq: number; kind: string };

beforeAll(async () => {
  dataDir = tempDataDir();
  keys = { a: issueKey(dataDir, 'a'), b: issueKey(dataDir, 'b') };
  const db = openDatabase(dataDir);
  const tenants = { a: tenantForKey({ db, key: keys.a })!, b: tenantForKey({ db, key: keys.b })! };
  closeDatabase(db);
  const ledger = openLedger(dataDir);
  const gens = [new HistoryGenerator(ledger, BROKEN, 51), new HistoryGenerator(ledger, OTHERS, 52)];
  gens[0]!.register(tenants.a);
  gens[1]!.register(tenants.b);
  for (const gen of gens) gen.deferIndexFrom = 1;
  for (let turn = 0; turn < 3; turn++) {
    for (const gen of gens) {
      gen.randomMutations();
      await gen.sync(turn);
    }
  }
  last = gens[0]!.turns.at(-1)!;
  const { blob_key: key } = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?').get(BROKEN, last.seq, last.kind) as { blob_key: string };
  const whole = (ledger.blobs as FsBlobStore).pathOf(key);
  const file = path.join(path.dirname(whole), fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!);
  closeDatabase(ledger.db);
  fs.writeFileSync(file, 'not the blob');
  // Sign-in required on loopback too: each key sees its own tenant (the local owner would see every agent).
  server = await spawnServe(['--port', '0', '--data', dataDir, '--auth', 'required'], {}, 900_000);
}, 900_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const api = (id: string, key: string) => raw(`${server.url}/api/agents/${id}`, { headers: { authorization: `Bearer ${key}` } });

it('the agent\'s JSON says where its history stops, which entry is stored and not folded, why and what to run', async () => {
  const reply = await api(BROKEN, keys.a);
  expect(reply.status).toBe(200);
  const agent = JSON.parse(reply.text) as { latest_sequence: number; index_notice: Record<string, unknown> & { message: string; action: string } };
  expect(agent.latest_sequence).toBe(last.seq);
  expect(agent.index_notice).toMatchObject({ agent_id: BROKEN, indexed_through: last.seq - 1, pending_from: last.seq, kind: last.kind, pending: 1, code: 'blob_corrupt' });
  expect(agent.index_notice.message).toContain(`The history shown stops at sequence ${last.seq - 1}: sequence ${last.seq} (${last.kind}) is stored in the ledger but could not be folded`);
  expect(agent.index_notice.action).toContain('`lineage doctor`');
  expect(reply.text).not.toContain(dataDir);
  // The other tenant's agent, folded by the same reads: nothing to say.
  const other = await api(OTHERS, keys.b);
  expect(other.status).toBe(200);
  expect(JSON.parse(other.text)).toMatchObject({ index_notice: null });
});

it('another tenant gets a 404 and no word of it', async () => {
  const reply = await api(BROKEN, keys.b);
  expect(reply.status).toBe(404);
  expect(reply.text).not.toContain('index_notice');
  expect(reply.text).not.toContain('stops at');
});

it('every page of the agent shows the notice under its header; another tenant\'s session sees neither the page nor the notice', async () => {
  const cookies = { a: await signIn(server.url, keys.a), b: await signIn(server.url, keys.b) };
  for (const page of [`/agents/${BROKEN}`, `/agents/${BROKEN}?tab=memories`, `/agents/${BROKEN}/workspace`, `/agents/${BROKEN}/sequences/0`]) {
    const html = await raw(`${server.url}${page}`, { headers: { cookie: cookies.a, accept: 'text/html' } });
    expect(html.status, page).toBe(200);
    expect(html.text, page).toContain('data-testid="index-notice"');
    expect(html.text, page).toContain(`history stops at sequence ${last.seq - 1}`);
    expect(html.text, page).toContain('lineage doctor');
    const theirs = await raw(`${server.url}${page}`, { headers: { cookie: cookies.b, accept: 'text/html' } });
    expect(theirs.status, page).toBe(404);
    expect(theirs.text, page).not.toContain('index-notice');
  }
  const healthy = await raw(`${server.url}/agents/${OTHERS}`, { headers: { cookie: cookies.b, accept: 'text/html' } });
  expect(healthy.status).toBe(200);
  expect(healthy.text).not.toContain('data-testid="index-notice"');
});
