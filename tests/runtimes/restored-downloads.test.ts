/**
 * Issue 20 §4: the `.tar.gz`/`.zip` download of a ZeroClaw or Hermes agent at sequence N is what
 * `lineage restore --out` writes at N — the database rebuilt from that agent's records at N (and
 * no other agent's), the raw files — through the real route, and the same bytes as the real CLI.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insert, seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb, type SeedRow } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { listEntries, readEntryBytes, registerAgent } from '@/lib/ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { embeddedLedger } from '@/lib/storage/embedded';
import { dashboardStorage } from '@/lib/storage/open';
import { guardHeaders } from '@/lib/server/scope-header';
import { runCli } from '@/tests/cli/run-cli';
import { untarGz } from '@/e2e/untar';
import { unzip } from '@/e2e/unzip';

const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const row = (id: string, key: string, content: string, agent: string, day: number): SeedRow => ({
  id, key, content, agent_id: agent, created_at: `2026-05-0${day}T10:00:00Z`, updated_at: `2026-05-0${day}T10:00:00Z`,
});
const ROWS = [
  row('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', A, 1),
  row('10000000-0000-4000-8000-000000000002', 'editor', 'Prefers vim keybindings', A, 2),
  row('20000000-0000-4000-8000-000000000001', 'secret-b', 'Agent B private plan', B, 1),
];

let root: string;
let dataDir: string;
const clock = steppingClock();
let zeroclawId: string;
let hermesId: string;

const params = <P>(p: P) => ({ params: Promise.resolve(p) });
async function download(agentId: string, seq: number, format: 'tar.gz' | 'zip'): Promise<Map<string, Buffer>> {
  const { GET } = await import('@/app/api/agents/[id]/workspace/download/route');
  const res = await GET(new Request(`http://localhost/api/x?seq=${seq}&format=${format}`, { headers: guardHeaders(undefined) }), params({ id: agentId }));
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  return format === 'zip' ? unzip(bytes) : untarGz(bytes);
}

/** Opens database bytes (from an archive) with better-sqlite3 and runs `read` on them. */
async function withDb<T>(bytes: Buffer, read: (db: Database.Database) => T): Promise<T> {
  const file = path.join(root, `db-${Math.random().toString(36).slice(2)}.db`);
  await fs.writeFile(file, bytes);
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

async function restoreOut(runtime: string, agentId: string, seq: number): Promise<string> {
  const out = path.join(root, `restored-${runtime}-${seq}`);
  const run = await runCli(['restore', '-r', runtime, '--agent', agentId, '--at-sequence', String(seq), '--out', out, '--data', dataDir], { ALF_HOME: path.join(root, 'cli-home') });
  expect(run.json).toMatchObject({ ok: true, sequence: seq });
  return out;
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-runtime-dl-'));
  dataDir = path.join(root, 'data');
  process.env.LINEAGE_DATA = dataDir;
  const target = localTarget(dataDir, clock);

  // ZeroClaw: one shared brain.db with two agents; scout syncs, its rows change between #0 and #1.
  const zc = await makeSandbox('lineage-zc-dl-');
  await seedBrainDb({ workspace: zc.workspace, agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: B, alias: 'ledger-bot', created_at: '2026-05-01T00:00:00Z' }], rows: ROWS });
  const zsync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: zc.workspace, runtimeAgent: 'scout', target, alfHome: zc.alfHome, clock });
  zeroclawId = (await zsync()).agent.alf_agent_id;
  const db = new Database(path.join(zc.workspace, 'memory', 'brain.db'));
  db.prepare("UPDATE memories SET content = 'The gateway is 10.20.0.9', updated_at = '2026-05-08T10:00:00Z' WHERE key = 'gateway' AND agent_id = ?").run(A);
  db.prepare("DELETE FROM memories WHERE key = 'editor' AND agent_id = ?").run(A);
  db.prepare("INSERT INTO memories (id, key, content, category, created_at, updated_at, agent_id) VALUES ('10000000-0000-4000-8000-000000000004', 'lesson', 'Never deploy on Fridays', 'core', '2026-05-08T11:00:00Z', '2026-05-08T11:00:00Z', ?)").run(A);
  db.prepare("UPDATE memories SET content = 'Agent B changed too' WHERE agent_id = ?").run(B);
  db.close();
  expect((await zsync()).sequence).toBe(1);

  // Hermes: sessions in state.db and curated memories; a session is added and the memory file edited at #1.
  const hm = await makeSandbox('lineage-hermes-dl-');
  await seedStateDb(hm.workspace, [{ id: 'sess-closed', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }],
    [{ session_id: 'sess-closed', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
  await writeFiles(hm.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n', 'memories/USER.md': 'Name: Dana\n', 'SOUL.md': 'Be brief.\n' });
  const hsync = () => syncWorkspace({ runtime: 'hermes', workspace: hm.workspace, target, alfHome: hm.alfHome, clock });
  hermesId = (await hsync()).agent.alf_agent_id;
  const sdb = new Database(path.join(hm.workspace, 'state.db'));
  insert(sdb, 'sessions', { id: 'sess-new', source: 'telegram', title: 'New chat', started_at: 1780002000, ended_at: 1780002100 });
  insert(sdb, 'messages', { session_id: 'sess-new', role: 'user', content: 'A brand new question', timestamp: 1780002010 });
  sdb.close();
  await writeFiles(hm.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.9.\n' });
  expect((await hsync()).sequence).toBe(1);

  // A second Hermes agent on the same server: none of its sessions or messages may reach the first one's state.db.
  const other = await makeSandbox('lineage-hermes-other-dl-');
  await seedStateDb(other.workspace, [{ id: 'sess-other', source: 'cli', title: 'Other agent chat', started_at: 1780000000, ended_at: 1780000600 }],
    [{ session_id: 'sess-other', role: 'user', content: 'Only the other agent knows this', timestamp: 1780000010 }]);
  await writeFiles(other.workspace, { 'memories/MEMORY.md': 'Other agent memory.\n', 'memories/USER.md': 'Name: Lee\n', 'SOUL.md': 'Be thorough.\n' });
  const otherId = (await syncWorkspace({ runtime: 'hermes', workspace: other.workspace, target, alfHome: other.alfHome, clock })).agent.alf_agent_id;
  expect(otherId).not.toBe(hermesId);
}, 60_000);
afterAll(() => fs.rm(root, { recursive: true, force: true }));

const memoryRows = (db: Database.Database) => db.prepare('SELECT id, key, content, agent_id FROM memories ORDER BY id').all();
const expectedAt = (seq: number) => seq === 0
  ? [{ id: ROWS[0]!.id, key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A }, { id: ROWS[1]!.id, key: 'editor', content: 'Prefers vim keybindings', agent_id: A }]
  : [{ id: ROWS[0]!.id, key: 'gateway', content: 'The gateway is 10.20.0.9', agent_id: A }, { id: '10000000-0000-4000-8000-000000000004', key: 'lesson', content: 'Never deploy on Fridays', agent_id: A }];

describe('ZeroClaw downloads hold the agent’s brain.db slice at the sequence', () => {
  it.each([0, 1])('#%i: .tar.gz and .zip hold data/memory/brain.db with exactly that agent’s rows then, no other agent’s', async (seq) => {
    const tgz = await download(zeroclawId, seq, 'tar.gz');
    const zip = await download(zeroclawId, seq, 'zip');
    const brain = tgz.get('data/memory/brain.db');
    expect(brain, [...tgz.keys()].join(', ')).toBeDefined();
    expect(zip.get('data/memory/brain.db')!.equals(brain!)).toBe(true);
    await withDb(brain!, (db) => {
      expect(memoryRows(db)).toEqual(expectedAt(seq));
      expect(db.prepare('SELECT id, alias FROM agents').all()).toEqual([{ id: A, alias: 'scout' }]);
      expect(JSON.stringify(db.prepare('SELECT * FROM memories').all())).not.toMatch(/Agent B|20000000-/);
    });
    // The raw channel's schema sidecar is not a workspace file: restore does not write it.
    expect([...tgz.keys()].some((p) => p.startsWith('.alf-') && p.endsWith('.json'))).toBe(false);
    // Same sequence, same bytes.
    expect((await download(zeroclawId, seq, 'tar.gz')).get('data/memory/brain.db')!.equals(brain!)).toBe(true);
  });

  it('holds the same files, bytes and rows as `lineage restore --out` at the sequence', async () => {
    const out = await restoreOut('zeroclaw', zeroclawId, 0);
    const tgz = await download(zeroclawId, 0, 'tar.gz');
    const restored = await fs.readFile(path.join(out, 'data', 'memory', 'brain.db'));
    expect(tgz.get('data/memory/brain.db')!.equals(restored)).toBe(true);
    const written = (await fs.readdir(out, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
      .map((e) => path.relative(out, path.join(e.parentPath, e.name)).split(path.sep).join('/')).filter((p) => p !== '.alf-synced.json').sort();
    expect([...tgz.keys()].sort()).toEqual(written);
  });
});

describe('Hermes downloads hold state.db with the sessions at the sequence and memories/*.md', () => {
  it.each([0, 1])('#%i: .tar.gz and .zip hold state.db with exactly that agent’s sessions then (another Hermes agent syncs beside it) and the memory files of that sequence', async (seq) => {
    for (const format of ['tar.gz', 'zip'] as const) {
      const files = await download(hermesId, seq, format);
      expect(files.get('memories/MEMORY.md')?.toString('utf8'), format).toBe(`Always run tests first.\n§\nThe gateway is 10.20.0.${seq === 0 ? 5 : 9}.\n`);
      expect(files.get('memories/USER.md')?.toString('utf8')).toBe('Name: Dana\n');
      await withDb(files.get('state.db')!, (db) => {
        expect(db.prepare('SELECT id, source, title FROM sessions ORDER BY id').all()).toEqual(seq === 0
          ? [{ id: 'sess-closed', source: 'cli', title: 'Deploy review' }]
          : [{ id: 'sess-closed', source: 'cli', title: 'Deploy review' }, { id: 'sess-new', source: 'telegram', title: 'New chat' }]);
        expect(db.prepare('SELECT session_id, content FROM messages ORDER BY id').all().length).toBe(seq === 0 ? 1 : 2);
        // Exactly this agent's: the other Hermes agent's session and message are in neither table.
        expect(JSON.stringify([db.prepare('SELECT * FROM sessions').all(), db.prepare('SELECT * FROM messages').all()])).not.toMatch(/sess-other|Other agent|Only the other/);
      });
    }
  });

  it('holds the same files and bytes as `lineage restore --out` at the sequence', async () => {
    const out = await restoreOut('hermes', hermesId, 1);
    const tgz = await download(hermesId, 1, 'tar.gz');
    for (const rel of ['state.db', 'memories/MEMORY.md', 'memories/USER.md', 'SOUL.md']) {
      expect(tgz.get(rel)!.equals(await fs.readFile(path.join(out, ...rel.split('/')))), rel).toBe(true);
    }
  });
});

describe('GET /api/agents/:id/workspace/records: the database rows at a sequence, paged', () => {
  async function records(agentId: string, query: string) {
    const { GET } = await import('@/app/api/agents/[id]/workspace/records/route');
    return GET(new Request(`http://localhost/api/x?${query}`, { headers: guardHeaders(undefined) }), params({ id: agentId }));
  }

  it('lists the ZeroClaw agent’s rows at #N with key, category and last change, a page at a time', async () => {
    const at0 = await (await records(zeroclawId, 'seq=0')).json();
    expect(at0).toMatchObject({ seq: 0, database: 'data/memory/brain.db', total: 2, next_cursor: null });
    expect(at0.items.map((r: { key: string; category: string; seq: number }) => [r.key, r.category, r.seq]).sort()).toEqual([['editor', 'core', 0], ['gateway', 'core', 0]]);
    const first = await (await records(zeroclawId, 'seq=1&limit=1')).json();
    expect(first.total).toBe(2);
    expect(first.items).toHaveLength(1);
    const second = await (await records(zeroclawId, `seq=1&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second.next_cursor).toBeNull();
    const both = [...first.items, ...second.items];
    expect(both.map((r: { key: string; seq: number; content: string }) => [r.key, r.seq, r.content]).sort()).toEqual([
      ['gateway', 1, 'The gateway is 10.20.0.9'], ['lesson', 1, 'Never deploy on Fridays'],
    ]);
  });

  it('lists the Hermes sessions (not the curated entries, which live in memories/MEMORY.md)', async () => {
    const body = await (await records(hermesId, 'seq=1')).json();
    expect(body).toMatchObject({ database: 'state.db', total: 2 });
    expect(body.items.map((r: { key: string; category: string }) => [r.key, r.category]).sort()).toEqual([['sess-closed', 'cli'], ['sess-new', 'telegram']]);
  });

  it('answers bad input with a 4xx', async () => {
    expect((await records(zeroclawId, 'seq=9')).status).toBe(404);
    expect((await records(zeroclawId, 'limit=0')).status).toBe(400);
    expect((await records(zeroclawId, 'cursor=nonsense')).status).toBe(400);
    expect((await records('00000000-0000-4000-8000-000000000000', 'seq=0')).status).toBe(404);
  });
});

describe('stored records the adapter cannot write back', () => {
  it('the .tar.gz is a 422 that says so, not a 500', async () => {
    const ledger = embeddedLedger(await dashboardStorage());
    const stored = await readSnapshot(await readEntryBytes({ ledger, entry: listEntries({ ledger, agentId: hermesId })[0]! }));
    const broken = 'cccccccc-0000-4000-8000-00000000000c';
    // A session record whose session id is null: state.db cannot be written from it (restore refuses it too).
    const records = stored.records.map((r) => r.source.origin === 'state_db'
      ? { ...r, agent_id: broken, raw_source_format: { ...r.raw_source_format, session: { ...(r.raw_source_format as { session: object }).session, id: null } } }
      : { ...r, agent_id: broken });
    const manifest = { ...stored.manifest, agent: { ...(stored.manifest.agent as object), id: broken } };
    registerAgent({ ledger, id: broken, name: 'broken', sourceRuntime: 'hermes', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: broken, bytes: await writeSnapshot({ ...stored, manifest, records }), now: new Date() });
    const { GET } = await import('@/app/api/agents/[id]/workspace/download/route');
    const res = await GET(new Request('http://localhost/api/x?seq=0&format=tar.gz', { headers: guardHeaders(undefined) }), params({ id: broken }));
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/cannot be rebuilt from its records: cannot write the agent.s records back: record [0-9a-f-]{36}: its raw_source_format\.session\.id is null, not a session id; nothing was changed$/);
  });
});
