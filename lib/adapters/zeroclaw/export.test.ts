import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { NS, workspaceAgentId } from '@/lib/core/ids';
import { canonicalJson } from '@/lib/core/json';
import { uuidV5 } from '@/lib/core/uuid';
import { zeroclawAdapter } from './index';
import { f32Blob, fileStates, fixedClock, insertSeedRow, LEGACY_MEMORIES_DDL, listFiles, seedBrainDb, tempDir, type SeedRow } from './test-support';

const A = 'a0000000-0000-4000-8000-00000000000a';
const B = 'b0000000-0000-4000-8000-00000000000b';
const AGENTS = [
  { id: A, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' },
  { id: B, alias: 'beta', created_at: '2026-01-02T00:00:00Z' },
];
const VECTOR = Array.from({ length: 64 }, (_, i) => i / 8);

function rowsFor(agent: string, tag: string, n: number): SeedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${agent.slice(0, 8)}-1111-4111-8111-${String(i).padStart(12, '0')}`,
    key: `${tag}_fact_${i}`,
    content: `${tag} secret fact number ${i}`,
    created_at: `2026-01-1${i}T08:00:00+02:00`,
    updated_at: `2026-01-1${i}T09:30:00.123456Z`,
    agent_id: agent,
  }));
}

async function sharedWorkspace(): Promise<string> {
  const ws = await tempDir('zc');
  const alphaRows = rowsFor(A, 'alpha', 3);
  alphaRows[0] = { ...alphaRows[0]!, category: 'Procedure', importance: 0.9, embedding: f32Blob(VECTOR), session_id: 's-1' };
  alphaRows[1] = { ...alphaRows[1]!, key: 'user_msg_42', category: 'conversation', superseded_by: 'a0000000-1111-4111-8111-000000000002' };
  alphaRows[2] = { ...alphaRows[2]!, id: 'not-a-uuid', namespace: null, importance: 7 };
  await seedBrainDb({ workspace: ws, agents: AGENTS, rows: [...alphaRows, ...rowsFor(B, 'beta', 2)] });
  await writeFile(path.join(ws, 'SOUL.md'), '# Soul\n');
  await writeFile(path.join(ws, 'memory', 'notes.md'), 'alpha notes\n');
  await writeFile(path.join(ws, 'memory', 'brain.db-journal'), 'junk');
  return ws;
}

const exportAlpha = (workspace: string, persistAgentId = false) =>
  zeroclawAdapter.exportWorkspace({ workspace, runtimeAgent: 'alpha', persistAgentId, clock: fixedClock });

describe('zeroclaw export', () => {
  it("exports only the selected agent's rows, never another agent's", async () => {
    const ws = await sharedWorkspace();
    const result = await exportAlpha(ws);
    expect(result.records).toHaveLength(3);
    const everything = canonicalJson({ records: result.records, raw: [...result.raw].map(([k, v]) => [k, Buffer.from(v).toString()]) });
    expect(everything).not.toContain('beta secret');
    expect(everything).not.toContain('beta_fact');
    expect(everything).not.toContain(B);
    expect(everything).not.toContain('b0000000-1111');
    expect(result.agentName).toBe('alpha');
  });

  it('maps rows to records as CONTRACT §4.4 says', async () => {
    const result = await exportAlpha(await sharedWorkspace());
    const [first, second, third] = result.records;
    expect(first).toMatchObject({
      id: 'a0000000-1111-4111-8111-000000000000',
      memory_type: 'procedural',
      category: 'Procedure',
      confidence: 0.9,
      namespace: 'default',
      status: 'active',
      tags: ['Procedure', 'zeroclaw'],
      source: { runtime: 'zeroclaw', origin: 'sqlite', extraction_method: 'agent_written', session_id: 's-1' },
      temporal: { created_at: '2026-01-10T06:00:00Z', updated_at: '2026-01-10T09:30:00.123456Z' },
    });
    expect(first!.source.origin_file).toBeUndefined();
    expect(first!.embeddings).toEqual([
      { model: 'openai/text-embedding-3-small', dimensions: 64, vector: VECTOR, computed_at: '2026-01-10T09:30:00.123456Z', source: 'runtime' },
    ]);
    expect(Object.keys(first!.raw_source_format!)).toEqual([...Object.keys(first!.raw_source_format!)].sort());
    expect(first!.raw_source_format).toMatchObject({ key: 'alpha_fact_0', importance: 0.9, embedding_encoding: 'f32le' });
    expect(second).toMatchObject({
      memory_type: 'episodic', status: 'superseded', supersedes: 'a0000000-1111-4111-8111-000000000002',
      tags: ['conversation', 'zeroclaw', 'auto_save'],
    });
    expect(third!.id).toBe(uuidV5(NS.zeroclaw, 'not-a-uuid'));
    expect(third).toMatchObject({ namespace: 'default', confidence: 1, raw_source_format: { id: 'not-a-uuid', namespace: null, importance: 7 } });
  });

  it('is deterministic', async () => {
    const ws = await sharedWorkspace();
    const one = await exportAlpha(ws);
    const two = await exportAlpha(ws);
    expect(canonicalJson(one.records)).toBe(canonicalJson(two.records));
    expect([...one.raw.keys()]).toEqual([...two.raw.keys()]);
    for (const [k, v] of one.raw) expect(Buffer.from(two.raw.get(k)!).equals(Buffer.from(v))).toBe(true);
  });

  it('carries prose, memory/** and the DDL sidecar raw, never the database', async () => {
    const ws = await sharedWorkspace();
    await writeFile(path.join(ws, '.alf-synced.json'), '{}');
    await writeFile(path.join(ws, '.alfignore'), 'private-*.md\n');
    await writeFile(path.join(ws, 'memory', 'private-x.md'), 'hidden');
    const result = await exportAlpha(ws);
    expect([...result.raw.keys()]).toEqual(['.alf-brain-db-schema.json', 'SOUL.md', 'memory/notes.md']);
    expect(result.excludedByAlfignore).toBe(1);
    const sidecar = JSON.parse(Buffer.from(result.raw.get('.alf-brain-db-schema.json')!).toString());
    expect(sidecar.agent).toEqual(AGENTS[0]);
    expect(sidecar.ddl.some((s: string) => s.includes('CREATE VIRTUAL TABLE memories_fts'))).toBe(true);
    expect(sidecar.ddl.some((s: string) => s.includes('memories_fts_data'))).toBe(false);
    expect(JSON.stringify(sidecar)).not.toContain('beta');
  });

  it('requires an alias when several agents share brain.db, and lists them', async () => {
    const ws = await sharedWorkspace();
    const run = (runtimeAgent?: string) => zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent, persistAgentId: false, clock: fixedClock });
    await expect(run()).rejects.toThrow(/"alpha", "beta".*--runtime-agent/);
    await expect(run('gamma')).rejects.toMatchObject({ code: 'agent_not_found', message: expect.stringContaining('"alpha", "beta"') });
  });

  it('gives the first agent the workspace id and any other alias a derived one it never persists', async () => {
    const ws = await sharedWorkspace();
    const beta = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'beta', persistAgentId: true, clock: fixedClock });
    expect(beta.agentId).toBe(uuidV5(NS.zeroclawAgent, `${await realpath(ws)}#beta`));
    await expect(readFile(path.join(ws, '.alf-agent-id'), 'utf8')).rejects.toThrow();
    const alpha = await exportAlpha(ws, true);
    expect(alpha.agentId).toBe(workspaceAgentId('zeroclaw', await realpath(ws)));
    expect(await readFile(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(alpha.agentId);
  });

  it('reads a WAL database held open by another connection consistently, never writing the live files', async () => {
    const ws = await sharedWorkspace();
    await rm(path.join(ws, 'memory', 'brain.db-journal'));
    const writer = new Database(path.join(ws, 'memory', 'brain.db'));
    const pending = new Database(path.join(ws, 'memory', 'brain.db'));
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      insertSeedRow(writer, { ...rowsFor(A, 'alpha', 4)[3]!, content: 'committed only in the WAL' });
      pending.exec('BEGIN IMMEDIATE');
      insertSeedRow(pending, { ...rowsFor(A, 'alpha', 6)[5]!, content: 'never committed' });
      const walBytes = (await readFile(path.join(ws, 'memory', 'brain.db-wal'))).length;
      expect(walBytes).toBeGreaterThan(0);
      const liveFiles = ['memory/brain.db', 'memory/brain.db-wal'];
      const filesBefore = await listFiles(ws);
      const statesBefore = await fileStates(ws, liveFiles);
      await new Promise((resolve) => setTimeout(resolve, 20)); // so that a write would move an mtime
      const result = await exportAlpha(ws);
      const contents = result.records.map((r) => r.content);
      expect(contents).toContain('committed only in the WAL');
      expect(contents).not.toContain('never committed');
      expect([...result.raw.keys()].some((k) => k.includes('brain.db'))).toBe(false);
      expect(await fileStates(ws, liveFiles)).toEqual(statesBefore);
      const filesAfter = await listFiles(ws);
      expect(filesAfter).toEqual(filesBefore);
      expect(filesAfter).not.toContain('memory/brain.db-journal');
      pending.exec('COMMIT');
      expect(writer.prepare('SELECT COUNT(*) AS n FROM memories').get()).toEqual({ n: 7 });
    } finally {
      pending.close();
      writer.close();
    }
  });

  it('reads the pre-multi-agent layout as one agent', async () => {
    const ws = await tempDir('zc-legacy');
    await mkdir(path.join(ws, 'data', 'memory'), { recursive: true });
    const db = new Database(path.join(ws, 'data', 'memory', 'brain.db'));
    db.exec(LEGACY_MEMORIES_DDL);
    db.prepare("INSERT INTO memories (id, key, content, created_at, updated_at) VALUES ('550e8400-e29b-41d4-a716-446655440001', 'k1', 'legacy fact', '2026-01-10T00:00:00Z', '2026-01-10T00:00:00Z')").run();
    db.close();
    const result = await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect(result.agentName).toBe('default');
    expect(result.records.map((r) => [r.id, r.content, r.namespace])).toEqual([['550e8400-e29b-41d4-a716-446655440001', 'legacy fact', 'default']]);
    expect(await zeroclawAdapter.memoryPresent(ws)).toBe(true);
  });

  it('finds brain.db at memory.db, then by a shallow search (three path segments deep at most)', async () => {
    const seedAt = async (rel: string, content: string) => {
      const ws = await tempDir('zc-locate');
      await seedBrainDb({ workspace: ws, rel, agents: [AGENTS[0]!], rows: [{ ...rowsFor(A, 'alpha', 1)[0]!, content }] });
      return ws;
    };
    const contentsOf = async (ws: string) =>
      (await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock })).records.map((r) => r.content);
    expect(await contentsOf(await seedAt('memory.db', 'from memory.db'))).toEqual(['from memory.db']);
    expect(await contentsOf(await seedAt('nested/x/brain.db', 'found by search'))).toEqual(['found by search']);
    const tooDeep = await seedAt('nested/x/y/brain.db', 'too deep');
    await expect(contentsOf(tooDeep)).rejects.toThrow(/no brain\.db/);
    const hidden = await seedAt('.cache/brain.db', 'hidden');
    await expect(contentsOf(hidden)).rejects.toThrow(/no brain\.db/);
  });

  it('tries data/memory/brain.db, memory/brain.db, memory.db, then the search, in that order (CONTRACT §4.4)', async () => {
    const ws = await tempDir('zc-locate-order');
    const seed = (rel: string, content: string) =>
      seedBrainDb({ workspace: ws, rel, agents: [AGENTS[0]!], rows: [{ ...rowsFor(A, 'alpha', 1)[0]!, content }] });
    const contents = async () =>
      (await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock })).records.map((r) => r.content);
    await seed('a/brain.db', 'searched');
    expect(await contents()).toEqual(['searched']);
    await seed('memory.db', 'memory.db');
    expect(await contents()).toEqual(['memory.db']);
    await seed('memory/brain.db', 'memory/brain.db');
    expect(await contents()).toEqual(['memory/brain.db']);
    await seed('data/memory/brain.db', 'data/memory/brain.db');
    expect(await contents()).toEqual(['data/memory/brain.db']);
  });

  it('carries later columns (kind, pinned, tenant_id) in raw_source_format', async () => {
    const ws = await tempDir('zc-later');
    await seedBrainDb({ workspace: ws, agents: [AGENTS[0]!], rows: [{ ...rowsFor(A, 'alpha', 1)[0]!, kind: 'fact', pinned: 1, tenant_id: 't1' }], extraColumns: true });
    const [record] = (await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock })).records;
    expect(record!.raw_source_format).toMatchObject({ kind: 'fact', pinned: 1, tenant_id: 't1' });
  });

  it("carries a numeric id as its text where the id column's type makes that text the number again (the record as before), as a number where the column has no type", async () => {
    const exportOf = async (idType: string) => {
      const ws = await tempDir('zc-id-type');
      await mkdir(path.join(ws, 'data', 'memory'), { recursive: true });
      new Database(path.join(ws, 'data', 'memory', 'brain.db')).exec(`
        CREATE TABLE memories (id ${idType}, key TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        INSERT INTO memories VALUES (5, 'k5', 'fact five', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
        INSERT INTO memories VALUES (NULL, 'kn', 'fact null', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z');`).close();
      const { records } = await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
      return records.map((r) => [r.id, r.raw_source_format!.id]);
    };
    // INTEGER, NUMERIC and REAL affinity store the text '5' as the number 5, TEXT affinity stores text: the id travels as text, the record unchanged.
    for (const type of ['INTEGER', 'BIGINT', 'NUMERIC', 'DOUBLE', 'VARCHAR(36)']) {
      expect(await exportOf(type), type).toEqual([[uuidV5(NS.zeroclaw, '5'), '5'], [uuidV5(NS.zeroclaw, 'null'), null]]);
    }
    // No affinity (no type, BLOB): '5' would stay text, so the number travels as a number.
    for (const type of ['', 'BLOB']) expect(await exportOf(type), type).toEqual([[uuidV5(NS.zeroclaw, '5'), 5], [uuidV5(NS.zeroclaw, 'null'), null]]);
  });

  it('says which values a record cannot carry exactly: TEXT that is not UTF-8, an integer beyond 2^53', async () => {
    const ws = await tempDir('zc-inexact');
    const [first, second, third] = rowsFor(A, 'alpha', 3);
    const dbPath = await seedBrainDb({ workspace: ws, agents: [AGENTS[0]!], rows: [{ ...second!, content: 'a real \uFFFD stays quiet' }, { ...third!, pinned: 2n ** 60n + 1n }], extraColumns: true });
    const db = new Database(dbPath);
    db.prepare("INSERT INTO memories (id, key, content, created_at, updated_at, agent_id) VALUES (?, ?, CAST(x'41ff42' AS TEXT), ?, ?, ?)").run(first!.id, first!.key, first!.created_at, first!.updated_at, A);
    db.close();
    const result = await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect(result.warnings).toEqual([
      `memories row ${first!.id}: content is TEXT that is not valid UTF-8; synced with U+FFFD for the bytes that are not, which a restore writes instead`,
      `memories row ${third!.id}: pinned 1152921504606846977 is beyond what a JSON number holds exactly; synced as 1152921504606847000`,
    ]);
    expect(result.records.map((r) => r.content)).toEqual(['A\uFFFDB', 'a real \uFFFD stays quiet', third!.content]);
  });

  it('reports memory presence per agent and fails clearly without a brain.db', async () => {
    const ws = await sharedWorkspace();
    expect(await zeroclawAdapter.memoryPresent(ws, 'beta')).toBe(true);
    expect(await zeroclawAdapter.memoryPresent(ws, 'gamma')).toBe(false);
    expect(await zeroclawAdapter.memoryPresent(ws)).toBe(true);
    const empty = await tempDir('zc-empty');
    expect(await zeroclawAdapter.memoryPresent(empty)).toBe(false);
    await expect(zeroclawAdapter.exportWorkspace({ workspace: empty, persistAgentId: false, clock: fixedClock })).rejects.toThrow(/no brain\.db/);
  });
});

describe('zeroclaw export: bad input', () => {
  it('names the two rows when their ids make one record id (letter case, NULL), instead of an archive refused as malformed', async () => {
    const ws = await tempDir('zc-dup-ids');
    const [first, second] = rowsFor(A, 'alpha', 2);
    await seedBrainDb({ workspace: ws, agents: [AGENTS[0]!], rows: [first!, { ...second!, id: first!.id.toUpperCase() }] });
    const error = await zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'bad_store',
      message: `memory/brain.db: the memories rows id ${JSON.stringify(first!.id)} (key "${first!.key}") and id ${JSON.stringify(first!.id.toUpperCase())} (key "${second!.key}") make the same record id ${first!.id}, so they cannot be synced as two memories`,
      hint: 'give each row its own id (a UUID, in one letter case, never NULL), then sync again (nothing was uploaded)',
    });
  });

  /** A brain.db whose `agents` table, as another writer made it, has no NOT NULL/UNIQUE on `alias`. */
  async function looseAgentsDb(agents: [id: string, alias: unknown][]): Promise<string> {
    const ws = await tempDir('zc-loose-agents');
    await mkdir(path.join(ws, 'memory'), { recursive: true });
    const db = new Database(path.join(ws, 'memory', 'brain.db'));
    db.exec('CREATE TABLE agents (id TEXT PRIMARY KEY, alias, created_at TEXT); CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT, content TEXT, created_at TEXT, updated_at TEXT, agent_id TEXT)');
    agents.forEach(([id, alias], i) => {
      db.prepare('INSERT INTO agents VALUES (?, ?, ?)').run(id, alias, `2026-01-0${i + 1}T00:00:00Z`);
      db.prepare('INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?)').run(`${id.slice(0, 8)}-1111-4111-8111-000000000000`, 'k', 'fact', '2026-01-05T00:00:00Z', '2026-01-05T00:00:00Z', id);
    });
    db.close();
    return ws;
  }

  it('refuses an agent whose alias is not text (NULL, a BLOB, a number) by its row, with a hint, instead of failing on it later', async () => {
    for (const [alias, said] of [[null, 'NULL'], [Buffer.from('alpha'), 'a BLOB'], [7, 'number 7'], [7n, 'number 7']] as const) {
      const ws = await looseAgentsDb([[A, alias]]);
      // Without --runtime-agent the one agent was taken, and its alias (the agent's name) failed the sync as an internal error.
      for (const runtimeAgent of [undefined, 'alpha']) {
        const error = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent, persistAgentId: false, clock: fixedClock }).catch((e: unknown) => e);
        expect(error).toMatchObject({
          code: 'bad_store',
          message: `${path.join(ws, 'memory', 'brain.db')}: the agents row with id "${A}" has alias ${said}, not text, so no agent of this database can be chosen by alias`,
          hint: expect.stringContaining('give that agent a text alias'),
        });
      }
    }
  });

  it('refuses an alias two agents share (a table without UNIQUE) as ambiguous instead of reading the first', async () => {
    const ws = await looseAgentsDb([[A, 'alpha'], [B, 'alpha']]);
    const file = path.join(ws, 'memory', 'brain.db');
    const error = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'agent_selection_ambiguous',
      message: `${file} holds 2 agents with alias "alpha" (ids "${A}", "${B}"); one alias must name one agent`,
      hint: expect.stringContaining('give each agent its own alias'),
    });
  });

  it("names the database's path when choosing an agent fails (it said brain.db, not which one)", async () => {
    const ws = await looseAgentsDb([[A, 'alpha'], [B, 'beta']]);
    const file = path.join(ws, 'memory', 'brain.db');
    const choose = (runtimeAgent: string | undefined) => zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent, persistAgentId: false, clock: fixedClock }).catch((e: unknown) => e);
    expect(await choose(undefined)).toMatchObject({ code: 'agent_selection_ambiguous', message: `${file} holds 2 agents ("alpha", "beta"); choose one with --runtime-agent ALIAS` });
    expect(await choose('gamma')).toMatchObject({ code: 'agent_not_found', message: `no ZeroClaw agent with alias "gamma"; ${file} has "alpha", "beta"` });
    const empty = await looseAgentsDb([]);
    expect(await zeroclawAdapter.exportWorkspace({ workspace: empty, persistAgentId: false, clock: fixedClock }).catch((e: unknown) => e))
      .toMatchObject({ code: 'no_agents', message: `${path.join(empty, 'memory', 'brain.db')} has no agents (the agents table is empty)` });
  });

  it('names the file when brain.db is not a database', async () => {
    const ws = await tempDir('zc-bad');
    await mkdir(path.join(ws, 'memory'), { recursive: true });
    await writeFile(path.join(ws, 'memory', 'brain.db'), 'SQLite format 3 but not really');
    await expect(zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock })).rejects.toMatchObject({
      code: 'bad_store',
      message: expect.stringMatching(/cannot read SQLite database .*brain\.db: file is not a database$/),
      hint: expect.stringContaining("check that it is the agent's own SQLite database"),
    });
  });

  it('says, with a hint, that a brain.db without a memories table (a zero-byte file, another program\'s database) is not ZeroClaw\'s', async () => {
    for (const bytes of [Buffer.alloc(0), null]) {
      const ws = await tempDir('zc-no-table');
      await mkdir(path.join(ws, 'memory'), { recursive: true });
      const file = path.join(ws, 'memory', 'brain.db');
      if (bytes !== null) await writeFile(file, bytes);
      else new Database(file).exec('CREATE TABLE notes (body TEXT)').close();
      await expect(zeroclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock })).rejects.toMatchObject({
        code: 'bad_store',
        message: `${file} has no memories table`,
        hint: expect.stringContaining('check that -w is the ZeroClaw workspace'),
      });
    }
  });
});
