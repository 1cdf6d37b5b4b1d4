/**
 * A ZeroClaw agent synced by `lineage sync` and restored by `lineage restore --out` into a new directory
 * (no brain.db yet) comes back value- and type-exact: its `agents` row (a NULL or a number time
 * included), an INTEGER `id`, and the source's own schema (a legacy table stays legacy). A brain.db
 * without a `memories` table is refused naming the file. A Hermes home's state.db likewise: a legacy
 * schema, its session times NULL or INTEGER, its schema_version.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli';
import { BRAIN_DB_DDL } from '@/lib/adapters/zeroclaw/schema';
import { STATE_DB_DDL } from '@/lib/adapters/hermes/schema';
import { captureDdl } from '@/lib/adapters/zeroclaw/sqlite-io';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-zc-fresh-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

/** A workspace whose `data/memory/brain.db` is built by `ddl` and `inserts` (plain SQL, so values keep their SQL types). */
async function workspace(name: string, sql: string): Promise<{ ws: string; db: string }> {
  const ws = path.join(tmp, name);
  await fs.mkdir(path.join(ws, 'data', 'memory'), { recursive: true });
  const db = path.join(ws, 'data', 'memory', 'brain.db');
  new Database(db).exec(sql).close();
  return { ws, db };
}

/** The CLI's JSON answers of `syncAndRestore`, by its name. */
const answers = new Map<string, { sync: Record<string, unknown>; restore: Record<string, unknown> }>();

/** Syncs the workspace, restores it into a new directory; the restored brain.db's path. */
async function syncAndRestore(name: string, ws: string, runtime: 'zeroclaw' | 'hermes' = 'zeroclaw'): Promise<string> {
  const env = { ALF_HOME: path.join(tmp, `home-${name}`) };
  const data = path.join(tmp, `data-${name}`);
  const synced = await runCli(['sync', '-r', runtime, '-w', ws, '--data', data], env);
  expect(synced.json, synced.stderr).toMatchObject({ ok: true });
  const agentId = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;
  const out = path.join(tmp, `out-${name}`);
  const restored = await runCli(['restore', '-r', runtime, '--agent', agentId, '--out', out, '--data', data], env);
  expect(restored.json, restored.stderr).toMatchObject({ ok: true, runtime, applied: true });
  answers.set(name, { sync: synced.json, restore: restored.json });
  return runtime === 'zeroclaw' ? path.join(out, 'data', 'memory', 'brain.db') : path.join(out, 'state.db');
}

/** Every row of a table, each value as SQLite's `typeof` and `quote` give it (so 5 and '5', 1.0 and 1 differ). */
function typedRows(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name);
    const select = columns.map((c) => `typeof("${c}") || ':' || quote("${c}")`).join(` || ' | ' || `);
    return (db.prepare(`SELECT ${select} AS r FROM "${table}" ORDER BY rowid`).all() as { r: string }[]).map((row) => row.r);
  } finally {
    db.close();
  }
}

/** The schema's statements, as `sqlite_master` holds them. */
function schema(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid').all() as { sql: string }[]).map((r) => r.sql);
  } finally {
    db.close();
  }
}

describe('lineage restore --out of a ZeroClaw agent: the brain.db as the source held it', () => {
  it("keeps the agents row's NULL and number times (they came back as the restore time) and an INTEGER id (it came back TEXT)", async () => {
    const { ws, db } = await workspace('typed', `
      CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at, updated_at);
      CREATE TABLE memories (id INTEGER PRIMARY KEY, key TEXT NOT NULL, content TEXT NOT NULL, category TEXT NOT NULL DEFAULT 'core',
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, agent_id TEXT NOT NULL REFERENCES agents(id), UNIQUE (agent_id, key));
      INSERT INTO agents VALUES ('a1', 'bot', NULL, 1700000000);
      INSERT INTO memories VALUES (5, 'gateway', 'The gateway is 10.20.0.5', 'core', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a1');
      INSERT INTO memories VALUES (12, 'plan', 'Reconcile on Mondays', 'core', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'a1');`);
    const restored = await syncAndRestore('typed', ws);
    expect(typedRows(restored, 'agents')).toEqual(["text:'a1' | text:'bot' | null:NULL | integer:1700000000"]);
    expect(typedRows(restored, 'agents')).toEqual(typedRows(db, 'agents'));
    expect(typedRows(restored, 'memories').map((r) => r.split(' | ')[0])).toEqual(['integer:5', 'integer:12']);
    expect(typedRows(restored, 'memories')).toEqual(typedRows(db, 'memories'));

    const numbered = await workspace('numbered', `
      CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at);
      CREATE TABLE memories (id PRIMARY KEY, key TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        agent_id TEXT NOT NULL REFERENCES agents(id));
      INSERT INTO agents VALUES ('a1', 'bot', 1700000000.5);
      INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000001', 'k', 'fact', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a1');
      INSERT INTO memories VALUES (7, 'k7', 'fact 7', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'a1');`);
    const restoredNumbered = await syncAndRestore('numbered', numbered.ws);
    expect(typedRows(restoredNumbered, 'agents')).toEqual(["text:'a1' | text:'bot' | real:1700000000.5"]);
    // An id column without a declared type keeps what each row held: no affinity turns '7' back into 7.
    expect(typedRows(restoredNumbered, 'memories').map((r) => r.split(' | ')[0])).toEqual(["text:'10000000-0000-4000-8000-000000000001'", 'integer:7']);
    expect(typedRows(restoredNumbered, 'memories')).toEqual(typedRows(numbered.db, 'memories'));
  });

  it("keeps a legacy source's own schema: no agents table, no ZeroClaw columns added (they were, with their defaults)", async () => {
    const { ws, db } = await workspace('legacy', `
      CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE, content TEXT NOT NULL, category TEXT NOT NULL DEFAULT 'core',
        embedding BLOB, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, session_id TEXT);
      INSERT INTO memories VALUES ('550e8400-e29b-41d4-a716-446655440001', 'k1', 'legacy fact', 'core', NULL, '2026-01-11T00:00:00Z', '2026-01-11T00:00:00Z', NULL);`);
    const restored = await syncAndRestore('legacy', ws);
    expect(schema(restored)).toEqual(schema(db));
    expect(typedRows(restored, 'memories')).toEqual(typedRows(db, 'memories'));
  });

  it('reads the agents row exact: an INTEGER beyond 2^53 is said (an id so rounded synced no memory, a column was rounded silently)', async () => {
    const { ws } = await workspace('big-agent', `
      CREATE TABLE agents (id INTEGER PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at TEXT, quota INTEGER);
      CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, agent_id INTEGER NOT NULL);
      INSERT INTO agents VALUES (9007199254740993, 'bot', '2026-01-01T00:00:00Z', 1152921504606846977);
      INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000001', 'k1', 'fact one', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 9007199254740993);
      INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000002', 'k2', 'fact two', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 9007199254740993);`);
    const restored = await syncAndRestore('big-agent', ws);
    expect(answers.get('big-agent')!.sync.warnings).toEqual([
      'memories row 10000000-0000-4000-8000-000000000001: agent_id 9007199254740993 is beyond what a JSON number holds exactly; synced as 9007199254740992',
      'memories row 10000000-0000-4000-8000-000000000002: agent_id 9007199254740993 is beyond what a JSON number holds exactly; synced as 9007199254740992',
      'agents row 9007199254740993: id 9007199254740993 is beyond what a JSON number holds exactly; synced as 9007199254740992',
      'agents row 9007199254740993: quota 1152921504606846977 is beyond what a JSON number holds exactly; synced as 1152921504606847000',
    ]);
    // The agent's memories were read by its exact id; the restored rows say the ids and values as synced.
    expect(typedRows(restored, 'memories').map((r) => r.split(' | ').slice(0, 3).join(' | '))).toEqual([
      "text:'10000000-0000-4000-8000-000000000001' | text:'k1' | text:'fact one'",
      "text:'10000000-0000-4000-8000-000000000002' | text:'k2' | text:'fact two'",
    ]);
    expect(typedRows(restored, 'agents')).toEqual(["integer:9007199254740992 | text:'bot' | text:'2026-01-01T00:00:00Z' | integer:1152921504606846976"]);
  });

  it("keeps a source's FTS4 and R-tree tables (their shadow tables refused its DDL): FTS4 filled, an R-tree a trigger fills replayed, another said empty", async () => {
    const { ws, db } = await workspace('fts4-rtree', `${BRAIN_DB_DDL}
      CREATE VIRTUAL TABLE notes_fts USING fts4(content, content="memories");
      CREATE VIRTUAL TABLE keys_fts USING fts4(key);
      CREATE TRIGGER keys_fts_insert AFTER INSERT ON memories BEGIN INSERT INTO keys_fts(docid, key) VALUES (new.rowid, new.key); END;
      CREATE VIRTUAL TABLE spans USING rtree(id, lo, hi);
      CREATE TRIGGER spans_insert AFTER INSERT ON memories BEGIN INSERT INTO spans VALUES (new.rowid, length(new.content), length(new.content) + 1); END;
      CREATE VIRTUAL TABLE places USING rtree(id, minx, maxx);
      INSERT INTO agents VALUES ('a1', 'bot', '2026-01-01T00:00:00Z');
      INSERT INTO memories (id, key, content, created_at, updated_at, agent_id) VALUES
        ('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a1'),
        ('10000000-0000-4000-8000-000000000002', 'plan', 'Reconcile on Mondays', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'a1');
      INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
      INSERT INTO places VALUES (1, 0.5, 2.5);`);
    const restored = await syncAndRestore('fts4-rtree', ws);
    // Its DDL was refused (the FTS4/R-tree shadow tables were in the sidecar): brain.db was built from ZeroClaw's own, without these tables.
    expect(answers.get('fts4-rtree')!.restore.warnings).toEqual([
      'brain.db: the R-tree table places is left empty: no trigger of the source fills it from the restored rows, and the archive does not carry its rows',
    ]);
    expect(schema(restored)).toEqual(schema(db));
    expect(typedRows(restored, 'memories')).toEqual(typedRows(db, 'memories'));
    const check = new Database(restored, { readonly: true });
    const source = new Database(db, { readonly: true });
    try {
      const keysOf = (d: Database.Database, fts: string, match: string) =>
        d.prepare(`SELECT m.key FROM ${fts} f JOIN memories m ON m.rowid = f.docid WHERE ${fts} MATCH ? ORDER BY m.key`).all(match);
      expect(keysOf(check, 'notes_fts', 'gateway')).toEqual([{ key: 'gateway' }]);
      expect(keysOf(check, 'keys_fts', 'plan')).toEqual([{ key: 'plan' }]);
      for (const [fts, match] of [['notes_fts', 'gateway OR mondays'], ['keys_fts', 'gateway OR plan']]) expect(keysOf(check, fts!, match!)).toEqual(keysOf(source, fts!, match!));
      const spans = (d: Database.Database) => d.prepare('SELECT m.key, s.lo, s.hi FROM spans s JOIN memories m ON m.rowid = s.id ORDER BY m.key').all();
      expect(spans(check)).toEqual(spans(source));
      expect(spans(check)).toHaveLength(2);
      expect(check.prepare('SELECT COUNT(*) AS n FROM places').get()).toEqual({ n: 0 });
    } finally {
      check.close();
      source.close();
    }
  });

  it("sends the same DDL sidecar as before for ZeroClaw's and Hermes' own schemas (only FTS5 shadow tables left out)", async () => {
    /** The sidecar's DDL (`captureDdl`, which export and sessions call on the source's copy). */
    const sidecarOf = (file: string): string[] => {
      const d = new Database(file, { readonly: true });
      try {
        return captureDdl(d);
      } finally {
        d.close();
      }
    };
    /** What the sidecar held before shadow tables were read from SQLite: every statement but sqlite_sequence and an FTS5 table's shadows. */
    const before = (file: string): string[] => {
      const d = new Database(file, { readonly: true });
      try {
        const rows = d.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid').all() as { type: string; name: string; sql: string }[];
        const virtual = rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(r.sql)).map((r) => r.name);
        const shadow = (n: string) => virtual.some((v) => n.startsWith(`${v}_`) && /_(data|idx|content|docsize|config)$/.test(n));
        return rows.filter((r) => r.name !== 'sqlite_sequence' && !shadow(r.name)).map((r) => r.sql);
      } finally {
        d.close();
      }
    };
    const zc = await workspace('standard-zc', `${BRAIN_DB_DDL}
      INSERT INTO agents VALUES ('a1', 'bot', '2026-01-01T00:00:00Z');
      INSERT INTO memories (id, key, content, created_at, updated_at, agent_id) VALUES ('10000000-0000-4000-8000-000000000001', 'k', 'fact', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a1');`);
    const home = path.join(tmp, 'standard-hermes');
    await fs.mkdir(home, { recursive: true });
    new Database(path.join(home, 'state.db')).exec(`${STATE_DB_DDL}
      INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1700000000.5);
      INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'hi', 1700000001.5);`).close();
    expect(JSON.stringify(sidecarOf(zc.db))).toBe(JSON.stringify(before(zc.db)));
    expect(before(zc.db).some((sql) => sql.includes('memories_fts'))).toBe(true);
    expect(JSON.stringify(sidecarOf(path.join(home, 'state.db')))).toBe(JSON.stringify(before(path.join(home, 'state.db'))));
  });

  it("restore -w into a brain.db that lacks the agent writes the source's whole agents row (it wrote id/alias/created_at, a NULL time the restore time)", async () => {
    const agentsRow = (db: string, alias: string) => typedRows(db, 'agents').filter((r) => r.includes(`text:'${alias}'`));
    for (const [name, createdAt] of [['live-agent', 'created_at'], ['live-agent-required', 'created_at TEXT NOT NULL']] as const) {
      const { ws, db } = await workspace(name, `
        CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, ${createdAt}, updated_at, note TEXT);
        CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, agent_id TEXT NOT NULL);
        INSERT INTO agents VALUES ('a0', 'scout', '2026-01-01T00:00:00Z', NULL, NULL);
        INSERT INTO agents VALUES ('a1', 'bot', ${createdAt === 'created_at' ? 'NULL' : "'2026-01-02T00:00:00Z'"}, 1700000000, 'kept');
        INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000001', 'k1', 'scout fact', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a0');
        INSERT INTO memories VALUES ('20000000-0000-4000-8000-000000000001', 'k2', 'bot fact', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'a1');`);
      const env = { ALF_HOME: path.join(tmp, `home-${name}`) };
      const data = path.join(tmp, `data-${name}`);
      expect((await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--runtime-agent', 'scout', '--data', data], env)).json).toMatchObject({ ok: true });
      const bot = await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--runtime-agent', 'bot', '--data', data], env);
      expect(bot.json, bot.stderr).toMatchObject({ ok: true });
      const before = agentsRow(db, 'bot');
      const live = new Database(db);
      live.exec("DELETE FROM memories WHERE agent_id = 'a1'; DELETE FROM agents WHERE id = 'a1'");
      if (name === 'live-agent-required') live.exec("UPDATE agents SET created_at = '2026-01-01T00:00:00Z'"); // the NOT NULL table, and the bot row synced with a time
      live.close();
      const botId = (bot.json.agent as { alf_agent_id: string }).alf_agent_id;
      const restored = await runCli(['restore', '-r', 'zeroclaw', '-w', ws, '--agent', botId, '--runtime-agent', 'bot', '--data', data], env);
      expect(restored.json, restored.stderr).toMatchObject({ ok: true, applied: true });
      expect(agentsRow(db, 'bot')).toEqual(before);
      expect(before).toEqual([`text:'a1' | text:'bot' | ${createdAt === 'created_at' ? 'null:NULL' : "text:'2026-01-02T00:00:00Z'"} | integer:1700000000 | text:'kept'`]);
    }
  });

  it("fires none of the source's triggers while it writes the rows (they changed the rows, wrote other tables, or RAISEd), and fills the FTS index", async () => {
    const { ws, db } = await workspace('triggers', `
      CREATE TABLE agents (id TEXT PRIMARY KEY, alias TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        agent_id TEXT NOT NULL REFERENCES agents(id));
      CREATE VIRTUAL TABLE memories_fts USING fts5(key, content, content=memories, content_rowid=rowid);
      CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN INSERT INTO memories_fts(rowid, key, content) VALUES (new.rowid, new.key, new.content); END;
      CREATE TABLE audit (memory_id TEXT, note TEXT);
      CREATE TRIGGER touch AFTER INSERT ON memories BEGIN UPDATE memories SET updated_at = 'touched' WHERE id = new.id; END;
      CREATE TRIGGER log AFTER INSERT ON memories BEGIN INSERT INTO audit VALUES (new.id, 'inserted'); END;
      INSERT INTO agents VALUES ('a1', 'bot', '2026-01-01T00:00:00Z');
      INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'a1');
      INSERT INTO memories VALUES ('10000000-0000-4000-8000-000000000002', 'plan', 'Reconcile on Mondays', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'a1');
      UPDATE memories SET updated_at = created_at;
      DELETE FROM audit;
      CREATE TRIGGER guard BEFORE INSERT ON agents BEGIN SELECT RAISE(ABORT, 'agents are added by the gateway'); END;
      CREATE TABLE schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at TEXT NOT NULL);
      INSERT INTO schema_version VALUES ('memory', 3, '2026-01-01T00:00:00Z');`);
    const restored = await syncAndRestore('triggers', ws);
    expect(schema(restored)).toEqual(schema(db));
    for (const table of ['agents', 'memories', 'schema_version', 'audit']) expect(typedRows(restored, table)).toEqual(typedRows(db, table));
    const check = new Database(restored);
    expect(check.prepare("SELECT key FROM memories_fts WHERE memories_fts MATCH 'gateway OR mondays' ORDER BY rowid").all()).toEqual([{ key: 'gateway' }, { key: 'plan' }]);
    check.prepare("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')").run(); // throws when the index is not its content's
    check.close();
  });

  it('names the file when brain.db has no memories table', async () => {
    const { ws, db } = await workspace('no-table', 'CREATE TABLE notes (body TEXT)');
    const run = await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--data', path.join(tmp, 'data-no-table')], { ALF_HOME: path.join(tmp, 'home-no-table') });
    expect(run.code).not.toBe(0);
    expect(run.json).toMatchObject({ ok: false, code: 'bad_store', error: `${db} has no memories table` });
  });
});

describe('lineage restore --out of a Hermes home: the state.db as the source held it', () => {
  it("keeps a legacy schema and its schema_version (they became Hermes' v16), session times NULL or INTEGER (an INTEGER came back REAL)", async () => {
    const home = path.join(tmp, 'hermes-legacy');
    await fs.mkdir(home, { recursive: true });
    const db = path.join(home, 'state.db');
    new Database(db).exec(`
      CREATE TABLE schema_version (version INTEGER NOT NULL);
      INSERT INTO schema_version VALUES (6);
      CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, started_at, ended_at, message_count INTEGER DEFAULT 0);
      CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT, timestamp);
      INSERT INTO sessions VALUES ('s1', 'cli', 'm', 1700000000, NULL, 2);
      INSERT INTO sessions VALUES ('s2', 'cli', 'm', NULL, 1700000100.5, 0);
      INSERT INTO messages VALUES (3, 's1', 'user', 'hi', 1700000001);
      INSERT INTO messages VALUES (9, 's1', 'assistant', 'hello', 1700000002.5);`).close();
    const restored = await syncAndRestore('hermes-legacy', home, 'hermes');
    expect(schema(restored)).toEqual(schema(db));
    expect(typedRows(restored, 'schema_version')).toEqual(['integer:6']);
    expect(typedRows(restored, 'sessions')).toEqual([
      "text:'s1' | text:'cli' | text:'m' | integer:1700000000 | null:NULL | integer:2",
      "text:'s2' | text:'cli' | text:'m' | null:NULL | real:1700000100.5 | integer:0",
    ]);
    expect(typedRows(restored, 'sessions')).toEqual(typedRows(db, 'sessions'));
    expect(typedRows(restored, 'messages')).toEqual(typedRows(db, 'messages'));
  });
  it("fires none of the source's triggers while it writes the rows, and fills Hermes' own full-text index as its triggers do", async () => {
    // A trigger that RAISEs (the guard) failed the restore; one that counts messages counted them again.
    for (const variant of ['plain', 'guarded', 'no-fts-trigger'] as const) {
      const name = `hermes-triggers-${variant}`;
      const home = path.join(tmp, name);
      await fs.mkdir(home, { recursive: true });
      const db = path.join(home, 'state.db');
      const ftsTrigger = `CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
          INSERT INTO messages_fts(rowid, content) VALUES (new.id, COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, ''));
        END;`;
      new Database(db).exec(`
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, message_count INTEGER DEFAULT 0);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT,
          tool_name TEXT, timestamp REAL NOT NULL);
        CREATE VIRTUAL TABLE messages_fts USING fts5(content);
        ${variant === 'no-fts-trigger' ? '' : ftsTrigger}
        CREATE TRIGGER count_messages AFTER INSERT ON messages BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
        INSERT INTO schema_version VALUES (16);
        INSERT INTO sessions VALUES ('s1', 'cli', 1700000000.5, 0);
        INSERT INTO messages VALUES (3, 's1', 'user', 'where is the gateway', NULL, 1700000001.5);
        INSERT INTO messages VALUES (9, 's1', 'assistant', NULL, 'grep', 1700000002.5);
        ${variant === 'guarded' ? "CREATE TRIGGER sessions_guard BEFORE INSERT ON sessions WHEN new.source = 'cli' BEGIN SELECT RAISE(ABORT, 'no new cli sessions'); END;" : ''}
        ${variant === 'no-fts-trigger' ? "INSERT INTO messages_fts(rowid, content) VALUES (3, 'written by the application');" : ''}`).close();
      const restored = await syncAndRestore(name, home, 'hermes');
      expect(schema(restored)).toEqual(schema(db));
      for (const table of ['schema_version', 'sessions', 'messages']) expect(typedRows(restored, table)).toEqual(typedRows(db, table));
      expect(typedRows(restored, 'sessions')).toEqual(["text:'s1' | text:'cli' | real:1700000000.5 | integer:2"]);
      const check = new Database(restored, { readonly: true });
      const source = new Database(db, { readonly: true });
      const fts = (d: Database.Database) => d.prepare('SELECT rowid, content FROM messages_fts ORDER BY rowid').all();
      if (variant === 'no-fts-trigger') {
        // What fills it is not in the archive: said, the index left empty.
        expect(answers.get(name)!.restore.warnings).toEqual(['state.db: the full-text table messages_fts is left empty: no trigger of the source fills it from the restored rows, and the archive does not carry its index']);
        expect(fts(check)).toEqual([]);
      } else {
        // The guard and the count do not fire in the replay that fills messages_fts (the guard left it empty).
        expect(answers.get(name)!.restore).not.toHaveProperty('warnings');
        expect(fts(check)).toEqual(fts(source));
        expect(check.prepare("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'grep'").all()).toEqual([{ rowid: 9 }]);
      }
      check.close();
      source.close();
    }
  });

  it("keeps a source's FTS4 and R-tree tables (their shadow tables refused its DDL): an own-content FTS4 filled as its trigger does, an R-tree said empty", async () => {
    const home = path.join(tmp, 'hermes-fts4-rtree');
    await fs.mkdir(home, { recursive: true });
    const db = path.join(home, 'state.db');
    new Database(db).exec(`${STATE_DB_DDL}
      CREATE VIRTUAL TABLE titles_fts USING fts4(content);
      CREATE TRIGGER titles_fts_insert AFTER INSERT ON messages BEGIN INSERT INTO titles_fts(docid, content) VALUES (new.id, new.content); END;
      CREATE VIRTUAL TABLE windows USING rtree(id, t0, t1);
      INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1700000000.5);
      INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (3, 's1', 'user', 'where is the gateway', 1700000001.5);
      INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (9, 's1', 'assistant', 'behind the router', 1700000002.5);
      INSERT INTO windows VALUES (1, 1700000000, 1700000100);`).close();
    const restored = await syncAndRestore('hermes-fts4-rtree', home, 'hermes');
    // Its DDL was refused (the FTS4/R-tree shadow tables were in the sidecar): state.db was built from Hermes' own, without these tables.
    expect(answers.get('hermes-fts4-rtree')!.restore.warnings).toEqual([
      'state.db: the R-tree table windows is left empty: no trigger of the source fills it from the restored rows, and the archive does not carry its rows',
    ]);
    expect(schema(restored)).toEqual(schema(db));
    for (const table of ['sessions', 'messages']) expect(typedRows(restored, table)).toEqual(typedRows(db, table));
    const check = new Database(restored, { readonly: true });
    const source = new Database(db, { readonly: true });
    try {
      const fts = (d: Database.Database, table: string) => d.prepare(`SELECT rowid, content FROM ${table} ORDER BY rowid`).all();
      expect(fts(check, 'titles_fts')).toEqual(fts(source, 'titles_fts'));
      expect(fts(check, 'messages_fts')).toEqual(fts(source, 'messages_fts'));
      expect(check.prepare("SELECT rowid FROM titles_fts WHERE titles_fts MATCH 'router'").all()).toEqual([{ rowid: 9 }]);
      expect(check.prepare('SELECT COUNT(*) AS n FROM windows').get()).toEqual({ n: 0 });
    } finally {
      check.close();
      source.close();
    }
  });

  it('restores a session whose id is a number (an untyped legacy column): sync took it, restore refused it', async () => {
    const home = path.join(tmp, 'hermes-numbered');
    await fs.mkdir(home, { recursive: true });
    const db = path.join(home, 'state.db');
    new Database(db).exec(`
      CREATE TABLE sessions (id PRIMARY KEY, source TEXT NOT NULL, started_at REAL, ended_at REAL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL);
      INSERT INTO sessions VALUES (42, 'cli', 1700000000.5, NULL);
      INSERT INTO messages VALUES (1, 42, 'user', 'hi', 1700000001);`).close();
    const restored = await syncAndRestore('hermes-numbered', home, 'hermes');
    expect(typedRows(restored, 'sessions')).toEqual(['integer:42 | text:\'cli\' | real:1700000000.5 | null:NULL']);
    expect(typedRows(restored, 'messages')).toEqual(typedRows(db, 'messages'));
  });
});
