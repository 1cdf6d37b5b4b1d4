/**
 * A served data directory whose agents each have a pending entry (a local sync's large upload, its fold
 * left to a catch-up) that cannot be folded for a reason other than a damaged blob: its blob file
 * missing from the blob store, unreadable (a directory where the file was), or intact (its sha256
 * matches) and no archive the fold reads. The reads of the embedded storage threw what the fold threw
 * (EISDIR: the dashboard's 500; the archive reader's refusal: a 400 'not a ZIP archive' for a page
 * view). They now answer from the history index as it stands, and the agent's JSON and every page say
 * where its history stops, why and what to run (lib/history/pending-index.ts `catchUpForRead`,
 * `indexNotice`) — to its tenant only. A real `lineage serve` with its dashboard, the folds on its
 * ingest thread. The fleet list (GET /api/agents, the overview page) flags them (`index_behind`), in their
 * tenant only. The same with a damaged blob: tests/server/index-notice.test.ts.
 */
import { createHash } from 'node:crypto';
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

const MISSING = '7b0f3c2e-6666-4a2b-8c3d-0000000000a1';
const UNREADABLE = '7b0f3c2e-6666-4a2b-8c3d-0000000000a2';
const NOT_AN_ARCHIVE = '7b0f3c2e-6666-4a2b-8c3d-0000000000a3';
const OTHERS = '7b0f3c2e-6666-4a2b-8c3d-0000000000b1';
const BROKEN = { [MISSING]: 'blob_corrupt', [UNREADABLE]: 'blob_unreadable', [NOT_AN_ARCHIVE]: 'bad_archive' } as const;

let dataDir: string;
let server: ChildServer;
let keys: { a: string; b: string };
const lastOf = new Map<string, { seq: number; kind: string }>();

beforeAll(async () => {
  dataDir = tempDataDir();
  keys = { a: issueKey(dataDir, 'a'), b: issueKey(dataDir, 'b') };
  const db = openDatabase(dataDir);
  const tenants = { a: tenantForKey({ db, key: keys.a })!, b: tenantForKey({ db, key: keys.b })! };
  closeDatabase(db);
  const ledger = openLedger(dataDir);
  const gens = [MISSING, UNREADABLE, NOT_AN_ARCHIVE, OTHERS].map((id, i) => new HistoryGenerator(ledger, id, 61 + i));
  for (const gen of gens) {
    gen.register(gen.agentId === OTHERS ? tenants.b : tenants.a);
    gen.deferIndexFrom = 1;
  }
  for (let turn = 0; turn < 3; turn++) {
    for (const gen of gens) {
      gen.randomMutations();
      await gen.sync(turn);
    }
  }
  const files = new Map<string, { key: string; file: string }>();
  for (const gen of gens) {
    const last = gen.turns.at(-1)!;
    lastOf.set(gen.agentId, last);
    const { blob_key: key } = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?').get(gen.agentId, last.seq, last.kind) as { blob_key: string };
    const whole = (ledger.blobs as FsBlobStore).pathOf(key);
    files.set(gen.agentId, { key: whole, file: path.join(path.dirname(whole), fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!) });
  }
  // Missing: its file gone. Unreadable: a directory where its file was. Not an archive: bytes its recorded sha256 matches.
  fs.rmSync(files.get(MISSING)!.file);
  fs.rmSync(files.get(UNREADABLE)!.file);
  fs.mkdirSync(files.get(UNREADABLE)!.file);
  const junk = Buffer.from('this is not an ALF archive');
  fs.rmSync(files.get(NOT_AN_ARCHIVE)!.file);
  fs.writeFileSync(files.get(NOT_AN_ARCHIVE)!.key, junk);
  const last = lastOf.get(NOT_AN_ARCHIVE)!;
  ledger.db.sqlite.prepare('UPDATE ledger_entries SET sha256 = ? WHERE agent_id = ? AND seq = ? AND kind = ?').run(createHash('sha256').update(junk).digest('hex'), NOT_AN_ARCHIVE, last.seq, last.kind);
  closeDatabase(ledger.db);
  // Sign-in required on loopback too: each key sees its own tenant.
  server = await spawnServe(['--port', '0', '--data', dataDir, '--auth', 'required'], {}, 900_000);
}, 900_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const api = (url: string, key: string) => raw(`${server.url}${url}`, { headers: { authorization: `Bearer ${key}` } });

it('each agent\'s JSON answers, says where its history stops, why and what to run; the fleet list and the other tenant\'s agent answer', async () => {
  for (const [id, code] of Object.entries(BROKEN)) {
    const last = lastOf.get(id)!;
    const reply = await api(`/api/agents/${id}`, keys.a);
    expect(reply.status, `${id}: ${reply.text}`).toBe(200);
    const agent = JSON.parse(reply.text) as { latest_sequence: number; index_notice: { message: string; action: string } };
    expect(agent.latest_sequence).toBe(last.seq);
    expect(agent.index_notice, id).toMatchObject({ agent_id: id, indexed_through: last.seq - 1, pending_from: last.seq, kind: last.kind, pending: 1, code });
    expect(agent.index_notice.message).toContain(`The history shown stops at sequence ${last.seq - 1}`);
    expect(agent.index_notice.action).toMatch(/lineage (doctor|index)/);
    expect(reply.text).not.toContain(dataDir);
    for (const view of [`/api/agents/${id}/sequences`, `/api/agents/${id}/workspace?seq=${last.seq - 1}`]) {
      const page = await api(view, keys.a);
      expect(page.status, `${view}: ${page.text}`).toBe(200);
    }
    // Another tenant: a 404 and no word of it.
    const theirs = await api(`/api/agents/${id}`, keys.b);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain('stops at');
  }
  // The fleet list marks the agents behind their ledger (a flag; the agent's own JSON says why), in its tenant only.
  const fleet = await api('/api/agents', keys.a);
  expect(fleet.status, fleet.text).toBe(200);
  const mine = JSON.parse(fleet.text) as { id: string; index_behind: boolean }[];
  expect(mine.map((a) => [a.id, a.index_behind]).sort()).toEqual(Object.keys(BROKEN).map((id) => [id, true]).sort());
  const theirs = JSON.parse((await api('/api/agents', keys.b)).text) as { id: string; index_behind: boolean }[];
  expect(theirs.map((a) => [a.id, a.index_behind])).toEqual([[OTHERS, false]]);
  const search = await api('/api/search?q=a', keys.a);
  expect(search.status, search.text).toBe(200);
  const other = await api(`/api/agents/${OTHERS}`, keys.b);
  expect(other.status).toBe(200);
  expect(JSON.parse(other.text)).toMatchObject({ latest_sequence: lastOf.get(OTHERS)!.seq, index_notice: null });
});

it('every page of each agent answers and shows the notice; another tenant\'s session sees neither', async () => {
  const cookies = { a: await signIn(server.url, keys.a), b: await signIn(server.url, keys.b) };
  for (const id of Object.keys(BROKEN)) {
    const last = lastOf.get(id)!;
    for (const page of [`/agents/${id}`, `/agents/${id}/workspace`, `/agents/${id}/sequences/0`]) {
      const html = await raw(`${server.url}${page}`, { headers: { cookie: cookies.a, accept: 'text/html' } });
      expect(html.status, page).toBe(200);
      expect(html.text, page).toContain('data-testid="index-notice"');
      expect(html.text, page).toContain(`history stops at sequence ${last.seq - 1}`);
      const theirs = await raw(`${server.url}${page}`, { headers: { cookie: cookies.b, accept: 'text/html' } });
      expect(theirs.status, page).toBe(404);
      expect(theirs.text, page).not.toContain('index-notice');
    }
  }
  // The overview page answers (its rows, drawn in the browser from GET /api/agents, flag them: e2e/index-notice.spec.ts).
  const fleet = await raw(`${server.url}/`, { headers: { cookie: cookies.a, accept: 'text/html' } });
  expect(fleet.status).toBe(200);
});
