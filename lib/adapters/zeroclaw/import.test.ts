import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { canonicalJson } from '@/lib/core/json';
import { zeroclawAdapter } from './index';
import { dumpRows, f32Blob, fixedClock, insertSeedRow, LEGACY_MEMORIES_DDL, seedBrainDb, snapshotOf, tempDir, type SeedRow } from './test-support';

const A = 'a0000000-0000-4000-8000-00000000000a';
const B = 'b0000000-0000-4000-8000-00000000000b';
const AGENTS = [
  { id: A, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' },
  { id: B, alias: 'beta', created_at: '2026-01-02T00:00:00Z' },
];

function row(agent: string, i: number, extra: Partial<SeedRow> = {}): SeedRow {
  return {
    id: `${agent.slice(0, 8)}-2222-4222-8222-${String(i).padStart(12, '0')}`,
    key: `k${i}`,
    content: `${agent === A ? 'alpha' : 'beta'} fact ${i}`,
    created_at: `2026-02-0${i + 1}T10:00:00.5+01:00`,
    updated_at: `2026-02-0${i + 1}T11:00:00Z`,
    agent_id: agent,
    ...extra,
  };
}

async function sourceWorkspace(): Promise<string> {
  const ws = await tempDir('zc-src');
  await seedBrainDb({
    workspace: ws,
    agents: AGENTS,
    rows: [
      row(A, 0, { embedding: f32Blob(Array.from({ length: 128 }, (_, i) => Math.sin(i))), importance: 0.25, session_id: 'sess' }),
      row(A, 1, { category: 'conversation', namespace: null, superseded_by: 'gone' }),
      row(A, 2, { id: 'legacy-id-7', importance: null, embedding: Buffer.from([1, 2, 3]) }),
      row(A, 3, { embedding: Buffer.alloc(8 * 3000, 1) }),
      row(B, 0),
      row(B, 1),
    ],
  });
  await writeFile(path.join(ws, 'memory', 'notes.md'), 'notes\n');
  return ws;
}

const exportAlpha = (workspace: string) =>
  zeroclawAdapter.exportWorkspace({ workspace, runtimeAgent: 'alpha', persistAgentId: true, clock: fixedClock });

describe('zeroclaw import', () => {
  it('rebuilds exactly the agent rows into --out (row for row, native ids preserved)', async () => {
    const src = await sourceWorkspace();
    const exported = await exportAlpha(src);
    const out = await tempDir('zc-out');
    const result = await zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: out, live: false, clock: fixedClock });
    expect(result.written).toEqual(['.alf-agent-id', 'data/memory/brain.db', 'memory/notes.md']);
    expect(result.memoryRecords).toBe(4);
    const restoredDb = path.join(out, 'data', 'memory', 'brain.db');
    expect(dumpRows(restoredDb)).toEqual(dumpRows(path.join(src, 'memory', 'brain.db'), 'WHERE agent_id = ?', [A]));
    const db = new Database(restoredDb, { readonly: true });
    expect(db.prepare('SELECT * FROM agents').all()).toEqual([AGENTS[0]]);
    expect(db.prepare("SELECT key FROM memories_fts WHERE memories_fts MATCH 'alpha'").all()).toHaveLength(4);
    expect(db.prepare('SELECT * FROM schema_version').all()).toEqual([{ component: 'memory', version: 3, applied_at: '2026-01-01T00:00:00Z' }]);
    db.close();
    expect(await readFile(path.join(out, 'memory', 'notes.md'), 'utf8')).toBe('notes\n');

    const again = await zeroclawAdapter.exportWorkspace({ workspace: out, persistAgentId: false, clock: fixedClock });
    expect(again.agentId).toBe(exported.agentId);
    expect(canonicalJson(again.records)).toBe(canonicalJson(exported.records));
    // The same raw bytes, the DDL sidecar included: a sync of the restored workspace has nothing to send.
    expect(again.raw).toEqual(exported.raw);
  });

  it("replaces only that agent's rows in a live brain.db, in one transaction", async () => {
    const src = await sourceWorkspace();
    const snapshot = snapshotOf(await exportAlpha(src));
    const live = await tempDir('zc-live');
    await cp(src, live, { recursive: true });
    const liveDb = path.join(live, 'memory', 'brain.db');
    const db = new Database(liveDb);
    db.prepare('DELETE FROM memories WHERE id = ?').run(row(A, 0).id);
    db.prepare("UPDATE memories SET content = 'edited' WHERE id = ?").run(row(A, 1).id);
    insertSeedRow(db, row(A, 5));
    insertSeedRow(db, row(B, 7));
    db.close();
    const betaBefore = dumpRows(liveDb, 'WHERE agent_id = ?', [B]);

    await zeroclawAdapter.importSnapshot({ snapshot, target: live, runtimeAgent: 'alpha', live: true, clock: fixedClock });
    expect(dumpRows(liveDb, 'WHERE agent_id = ?', [A])).toEqual(dumpRows(path.join(src, 'memory', 'brain.db'), 'WHERE agent_id = ?', [A]));
    expect(dumpRows(liveDb, 'WHERE agent_id = ?', [B])).toEqual(betaBefore);
    const check = new Database(liveDb, { readonly: true });
    expect(check.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE memories_fts MATCH 'edited'").get()).toEqual({ n: 0 });
    expect(check.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE memories_fts MATCH 'beta'").get()).toEqual({ n: 3 });
    check.close();
  });

  it('changes nothing when a restored id belongs to another agent', async () => {
    const src = await sourceWorkspace();
    const exported = await exportAlpha(src);
    exported.records[0] = { ...exported.records[0]!, id: row(B, 0).id };
    const liveDb = path.join(src, 'memory', 'brain.db');
    const before = dumpRows(liveDb);
    await expect(
      zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: src, runtimeAgent: 'alpha', live: true, clock: fixedClock }),
    ).rejects.toThrow(`belongs to another agent in ${liveDb}; nothing was changed`);
    expect(dumpRows(liveDb)).toEqual(before);
  });

  it('leaves every row as it was when a later restored row fails mid-write (one transaction)', async () => {
    const ws = await tempDir('zc-atomic');
    await seedBrainDb({ workspace: ws, agents: AGENTS, rows: [row(A, 0), row(A, 1), row(B, 0)] });
    const exported = await exportAlpha(ws);
    expect(exported.records.map((r) => r.raw_source_format?.key)).toEqual(['k0', 'k1']);
    // The second row's key now collides with the first's: UNIQUE (agent_id, key) fails on its
    // insert, after the agent's rows were deleted and the first row was written.
    exported.records[1] = { ...exported.records[1]!, raw_source_format: { ...exported.records[1]!.raw_source_format, key: 'k0' } };
    const liveDb = path.join(ws, 'memory', 'brain.db');
    const db = new Database(liveDb);
    db.prepare("UPDATE memories SET content = 'edited since the export' WHERE id = ?").run(row(A, 0).id);
    db.close();
    const before = dumpRows(liveDb);
    await expect(
      zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: ws, runtimeAgent: 'alpha', live: true, clock: fixedClock }),
    ).rejects.toThrow(/UNIQUE constraint failed: memories\.agent_id, memories\.key/);
    expect(dumpRows(liveDb)).toEqual(before);
  });

  it('restores a live pre-multi-agent database to exactly the exported rows', async () => {
    const ws = await tempDir('zc-legacy-live');
    await mkdir(path.join(ws, 'memory'), { recursive: true });
    const liveDb = path.join(ws, 'memory', 'brain.db');
    const db = new Database(liveDb);
    db.exec(LEGACY_MEMORIES_DDL);
    const add = db.prepare('INSERT INTO memories (id, key, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    for (const i of [1, 2, 3]) add.run(`550e8400-e29b-41d4-a716-44665544000${i}`, `k${i}`, `legacy fact ${i}`, `2026-01-1${i}T00:00:00Z`, `2026-01-1${i}T00:00:00Z`);
    db.close();
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    const atExport = dumpRows(liveDb);
    expect(atExport).toHaveLength(3);

    const edit = new Database(liveDb);
    edit.prepare("UPDATE memories SET content = 'edited' WHERE key = 'k1'").run();
    edit.prepare("DELETE FROM memories WHERE key = 'k2'").run();
    edit.prepare('INSERT INTO memories (id, key, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
      '550e8400-e29b-41d4-a716-446655440009', 'k9', 'added after the export', '2026-01-19T00:00:00Z', '2026-01-19T00:00:00Z',
    );
    edit.close();

    await zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: ws, live: true, clock: fixedClock });
    expect(dumpRows(liveDb)).toEqual(atExport);
    const check = new Database(liveDb, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([{ name: 'memories' }]);
    check.close();
  });

  it('never writes a database file carried in the raw channel', async () => {
    const src = await sourceWorkspace();
    const snapshot = snapshotOf(await exportAlpha(src));
    snapshot.raw.set('raw/zeroclaw/memory/brain.db', new TextEncoder().encode('evil'));
    snapshot.raw.set('raw/zeroclaw/memory/brain.db-wal', new TextEncoder().encode('evil'));
    snapshot.raw.set('raw/zeroclaw/data/memory/brain.db-shm', new TextEncoder().encode('evil'));
    const out = await tempDir('zc-hostile');
    const result = await zeroclawAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings.filter((w) => w.includes('never restored'))).toHaveLength(3);
    expect(dumpRows(path.join(out, 'data', 'memory', 'brain.db'))).toHaveLength(4);
    for (const rel of ['memory/brain.db', 'memory/brain.db-wal', 'data/memory/brain.db-shm']) {
      await expect(readFile(path.join(out, ...rel.split('/')))).rejects.toThrow(/ENOENT/);
    }
  });

  it('restores later columns into a fresh database', async () => {
    const src = await tempDir('zc-later');
    await seedBrainDb({ workspace: src, agents: [AGENTS[0]!], rows: [row(A, 0, { kind: 'fact', pinned: 1, tenant_id: 't' })], extraColumns: true });
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: src, persistAgentId: false, clock: fixedClock });
    const out = await tempDir('zc-later-out');
    await zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: out, live: false, clock: fixedClock });
    expect(dumpRows(path.join(out, 'data', 'memory', 'brain.db'))).toEqual(dumpRows(path.join(src, 'memory', 'brain.db')));
    expect((await zeroclawAdapter.exportWorkspace({ workspace: out, persistAgentId: false, clock: fixedClock })).raw).toEqual(exported.raw);
  });

  it('restores embedding BLOBs byte for byte through the archive, a -0.0 component included', async () => {
    const f32 = f32Blob(Array.from({ length: 64 }, (_, i) => i / 7));
    f32.writeFloatLE(-0, 0);
    const f64 = Buffer.alloc(8 * 3);
    f64.writeDoubleLE(0.25, 0);
    f64.writeDoubleLE(-0, 8);
    const src = await tempDir('zc-negzero');
    await seedBrainDb({ workspace: src, agents: [AGENTS[0]!], rows: [row(A, 0, { embedding: f32 }), row(A, 1, { embedding: f64 })] });
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: src, persistAgentId: false, clock: fixedClock });
    const archived = await readSnapshot(await writeSnapshot(snapshotOf(exported)));
    const out = await tempDir('zc-negzero-out');
    await zeroclawAdapter.importSnapshot({ snapshot: archived, target: out, live: false, clock: fixedClock });
    expect(dumpRows(path.join(out, 'data', 'memory', 'brain.db'))).toEqual(dumpRows(path.join(src, 'memory', 'brain.db')));
  });

  it('restores an embedding that is no vector BLOB (TEXT, an INTEGER, an empty BLOB another writer put there) as it was, not as NULL', async () => {
    const src = await tempDir('zc-oddemb');
    const rows = [row(A, 0, { embedding: 'text-embedding-3' as unknown as Buffer }), row(A, 1, { embedding: 12 as unknown as Buffer }), row(A, 2, { embedding: Buffer.alloc(0) }), row(A, 3, { embedding: null })];
    await seedBrainDb({ workspace: src, agents: [AGENTS[0]!], rows });
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: src, persistAgentId: false, clock: fixedClock });
    const archived = await readSnapshot(await writeSnapshot(snapshotOf(exported)));
    const out = await tempDir('zc-oddemb-out');
    await zeroclawAdapter.importSnapshot({ snapshot: archived, target: out, live: false, clock: fixedClock });
    const restored = dumpRows(path.join(out, 'data', 'memory', 'brain.db'));
    expect(restored.map((r) => r.embedding)).toEqual(['text-embedding-3', 12, 'hex:', null]);
    expect(restored).toEqual(dumpRows(path.join(src, 'memory', 'brain.db')));
  });

  it('a record another client wrote with a value no column holds is restore_incomplete, with nothing written', async () => {
    const exported = await exportAlpha(await sourceWorkspace());
    const snapshot = structuredClone(snapshotOf(exported));
    const record = snapshot.records.find((r) => r.source.origin === 'sqlite')!;
    (record.raw_source_format as Record<string, unknown>).key = { nested: true };
    const out = await tempDir('zc-odd-out');
    const error = await zeroclawAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock }).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({
      name: 'AdapterError', code: 'restore_incomplete',
      message: `cannot write the agent's records back: record ${record.id}: its raw_source_format.key is {"nested":true}, which no column holds; nothing was changed`,
    });
    expect(await readdir(out, { recursive: true })).toEqual([]);
  });

  it('restores a BLOB held in a column other than embedding, byte for byte through the archive', async () => {
    const src = await tempDir('zc-blobcol');
    await seedBrainDb({ workspace: src, agents: [AGENTS[0]!], rows: [row(A, 0, { tenant_id: Buffer.from([0, 1, 0xfe, 0xff]) }), row(A, 1, { tenant_id: 't' })], extraColumns: true });
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: src, persistAgentId: false, clock: fixedClock });
    const archived = await readSnapshot(await writeSnapshot(snapshotOf(exported)));
    const out = await tempDir('zc-blobcol-out');
    await zeroclawAdapter.importSnapshot({ snapshot: archived, target: out, live: false, clock: fixedClock });
    expect(dumpRows(path.join(out, 'data', 'memory', 'brain.db'))).toEqual(dumpRows(path.join(src, 'memory', 'brain.db')));
  });

  it("restores the columns a source table had beyond ZeroClaw's own into a fresh database, their values as they were", async () => {
    // A fresh brain.db had only ZeroClaw's columns: these values were dropped without a word.
    const src = await tempDir('zc-othercols');
    const file = await seedBrainDb({ workspace: src, agents: [AGENTS[0]!], rows: [] });
    const db = new Database(file);
    db.exec('ALTER TABLE memories ADD COLUMN weird BLOB; ALTER TABLE memories ADD COLUMN n NUMERIC; ALTER TABLE memories ADD COLUMN "say ""hi""; DROP TABLE agents" TEXT');
    insertSeedRow(db, { ...row(A, 0), weird: Buffer.from([0, 1, 0xff]), n: 3 });
    insertSeedRow(db, { ...row(A, 1), n: 2.5 });
    db.prepare('UPDATE memories SET "say ""hi""; DROP TABLE agents" = ? WHERE key = ?').run('quoted', 'k0');
    db.close();
    const exported = await zeroclawAdapter.exportWorkspace({ workspace: src, persistAgentId: false, clock: fixedClock });
    const archived = await readSnapshot(await writeSnapshot(snapshotOf(exported)));
    const out = await tempDir('zc-othercols-out');
    const result = await zeroclawAdapter.importSnapshot({ snapshot: archived, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual([]);
    const restored = path.join(out, 'data', 'memory', 'brain.db');
    expect(dumpRows(restored)).toEqual(dumpRows(file));
    const check = new Database(restored, { readonly: true });
    expect(check.prepare('SELECT COUNT(*) AS n FROM agents').get()).toEqual({ n: 1 });
    check.close();
  });

  it('adds no column named as a rowid (which the FTS triggers read) for a hostile archive: it is said as left out', async () => {
    const exported = await exportAlpha(await sourceWorkspace());
    const snapshot = structuredClone(snapshotOf(exported));
    for (const record of snapshot.records) Object.assign(record.raw_source_format as Record<string, unknown>, { rowid: 'text', OID: 'x' });
    const out = await tempDir('zc-rowid-out');
    const result = await zeroclawAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual(['brain.db has no memories.OID column; restored rows leave it out', 'brain.db has no memories.rowid column; restored rows leave it out']);
    expect(dumpRows(path.join(out, 'data', 'memory', 'brain.db')).map((r) => r.content)).toHaveLength(4);
  });

  it("builds a fresh brain.db from the archive's DDL only when each statement is one CREATE that reports itself back; else ZeroClaw's own, said", async () => {
    const exported = await exportAlpha(await sourceWorkspace());
    const elsewhere = path.join(await tempDir('zc-ddl-elsewhere'), 'attached.db');
    const hostile: [string[], string][] = [
      [[`ATTACH DATABASE '${elsewhere}' AS x`, 'CREATE TABLE x.memories (id TEXT)'], 'its statement 1 is not a CREATE of a table, index, trigger or view'],
      [["CREATE TABLE memories (id TEXT, key TEXT, content TEXT, created_at TEXT, updated_at TEXT, agent_id TEXT); ATTACH DATABASE 'x' AS x"], 'its statement 1 does not run (The supplied SQL string contains more than one statement)'],
      [['CREATE TABLE memories AS SELECT 1 AS id'], 'it is not the schema a database reports'],
      [['CREATE TABLE notes (body TEXT)'], 'it has no memories table'],
    ];
    for (const [ddl, problem] of hostile) {
      const snapshot = structuredClone(snapshotOf(exported));
      const key = 'raw/zeroclaw/.alf-brain-db-schema.json';
      const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
      snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl })));
      const out = await tempDir('zc-ddl-out');
      const result = await zeroclawAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
      expect(result.warnings).toEqual([`raw/zeroclaw/.alf-brain-db-schema.json: the source's brain.db schema was not used (${problem}); data/memory/brain.db was built from ZeroClaw's own`]);
      const restored = path.join(out, 'data', 'memory', 'brain.db');
      expect(dumpRows(restored)).toHaveLength(4);
      const check = new Database(restored, { readonly: true });
      expect(check.prepare("SELECT sql FROM sqlite_master WHERE name = 'memories'").get()).toEqual({ sql: expect.stringContaining('superseded_by TEXT') });
      check.close();
      await expect(readFile(elsewhere)).rejects.toThrow(/ENOENT/);
    }
  });

  it("into ZeroClaw's own DDL (an archive without the source's DDL) an agents created_at that is not text takes the restore time, said", async () => {
    const ws = await tempDir('zc-null-agent-time');
    await mkdir(path.join(ws, 'memory'), { recursive: true });
    const db = new Database(path.join(ws, 'memory', 'brain.db'));
    db.exec("CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at); CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT, content TEXT, created_at TEXT, updated_at TEXT, agent_id TEXT)");
    db.exec(`INSERT INTO agents VALUES ('${A}', 'alpha', NULL); INSERT INTO memories VALUES ('${row(A, 0).id}', 'k0', 'fact', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '${A}')`);
    db.close();
    const snapshot = structuredClone(snapshotOf(await exportAlpha(ws)));
    const key = 'raw/zeroclaw/.alf-brain-db-schema.json';
    const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
    expect(sidecar.agent).toEqual({ id: A, alias: 'alpha', created_at: null });
    snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl: undefined })));
    const out = await tempDir('zc-null-agent-time-out');
    const result = await zeroclawAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual([`agents row "${A}": created_at null is not text, which ZeroClaw's agents table holds; restored with the restore time`]);
    const check = new Database(path.join(out, 'data', 'memory', 'brain.db'), { readonly: true });
    expect(check.prepare('SELECT * FROM agents').all()).toEqual([{ id: A, alias: 'alpha', created_at: '2026-03-01T00:00:00.000Z' }]);
    check.close();
  });

  it("live, into ZeroClaw's own agents table (created_at TEXT NOT NULL) an agent whose created_at was NULL gets the restore time, said", async () => {
    const ws = await tempDir('zc-live-null-agent-time');
    await mkdir(path.join(ws, 'memory'), { recursive: true });
    const db = new Database(path.join(ws, 'memory', 'brain.db'));
    db.exec("CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at); CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT, content TEXT, created_at TEXT, updated_at TEXT, agent_id TEXT)");
    db.exec(`INSERT INTO agents VALUES ('${A}', 'alpha', NULL); INSERT INTO memories VALUES ('${row(A, 0).id}', 'k0', 'fact', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '${A}')`);
    db.close();
    const snapshot = snapshotOf(await exportAlpha(ws));
    const live = await tempDir('zc-live-null-agent-time-live');
    const liveDb = await seedBrainDb({ workspace: live, agents: [AGENTS[1]!], rows: [row(B, 0)] });
    const result = await zeroclawAdapter.importSnapshot({ snapshot, target: live, runtimeAgent: 'alpha', live: true, clock: fixedClock });
    expect(result.warnings).toEqual([`agents row "${A}": created_at null, which the agents table of ${liveDb} does not hold (NOT NULL); restored with the restore time`]);
    const check = new Database(liveDb, { readonly: true });
    expect(check.prepare('SELECT * FROM agents ORDER BY alias').all()).toEqual([{ id: A, alias: 'alpha', created_at: '2026-03-01T00:00:00.000Z' }, AGENTS[1]]);
    expect(check.prepare('SELECT key, agent_id FROM memories ORDER BY key, agent_id').all()).toEqual([{ key: 'k0', agent_id: A }, { key: 'k0', agent_id: B }]);
    check.close();
  });

  it('a live brain.db that refuses the write (its memories a VIEW, a trigger that RAISEs) is restore_incomplete, with nothing changed', async () => {
    // Each failed the restore as internal_error with SQLite's words and a stack.
    const exported = await exportAlpha(await sourceWorkspace());
    const cases = [
      ["CREATE TABLE m0 (id TEXT, key TEXT, content TEXT, created_at TEXT, updated_at TEXT); INSERT INTO m0 VALUES ('m', 'k', 'mine', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'); CREATE VIEW memories AS SELECT * FROM m0", 'cannot modify memories because it is a view'],
      ["CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT, content TEXT, created_at TEXT, updated_at TEXT); INSERT INTO memories VALUES ('m', 'k', 'mine', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'); CREATE TRIGGER keep BEFORE DELETE ON memories BEGIN SELECT RAISE(ABORT, 'rows here are kept'); END", 'rows here are kept'],
    ] as const;
    for (const [ddl, said] of cases) {
      const live = await tempDir('zc-refusing');
      await mkdir(path.join(live, 'memory'), { recursive: true });
      const dbPath = path.join(live, 'memory', 'brain.db');
      const db = new Database(dbPath);
      db.exec(ddl);
      db.close();
      const before = await readFile(dbPath);
      const error = await zeroclawAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: live, live: true, clock: fixedClock }).then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({
        name: 'AdapterError', code: 'restore_incomplete',
        message: `cannot restore into ${dbPath}: the database refused the write (${said}); nothing was changed`,
        hint: expect.stringContaining('a view, a trigger or a constraint'),
      });
      expect(await readFile(dbPath)).toEqual(before);
      expect((await readdir(live, { recursive: true })).sort()).toEqual(['memory', 'memory/brain.db']);
    }
  });
});
