import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@/lib/core/json';
import { hermesAdapter } from './index';
import { dumpTable, fixedClock, insert, seedStateDb, snapshotOf, tempDir, writeFiles } from './test-support';

const T0 = 1767268800.5;
const MEMORY = 'User prefers Rust.\n§\nAlways run cargo fmt.\n§\nUser prefers Rust.\n';
const USER = 'Name: Ada\n§\nTimezone: UTC\n';

async function source(): Promise<string> {
  const dir = await tempDir('hermes-src');
  await seedStateDb(
    dir,
    [
      { id: 'parent', source: 'cli', title: 'Parent', started_at: T0, ended_at: T0 + 9, input_tokens: 12, estimated_cost_usd: 0.0125 },
      { id: 'child', source: 'cli', started_at: T0 + 10, parent_session_id: 'parent' },
    ],
    [
      { session_id: 'parent', role: 'user', content: 'find the bug', timestamp: T0 + 1 },
      { session_id: 'parent', role: 'assistant', content: null, tool_calls: '[{"function":{"name":"grep"}}]', timestamp: T0 + 2, token_count: 7 },
      { session_id: 'child', role: 'user', content: 'and now?', timestamp: T0 + 11 },
    ],
  );
  await writeFiles(dir, { 'memories/MEMORY.md': MEMORY, 'memories/USER.md': USER, 'SOUL.md': 'soul\n', 'config.yaml': 'api_key: x\n' });
  return dir;
}

const exportHome = (workspace: string) => hermesAdapter.exportWorkspace({ workspace, persistAgentId: true, clock: fixedClock });

describe('hermes import', () => {
  it('round-trips memory files byte-exact and sessions/messages row for row', async () => {
    const src = await source();
    const exported = await exportHome(src);
    const out = await tempDir('hermes-out');
    const result = await hermesAdapter.importSnapshot({ snapshot: snapshotOf(exported), target: out, live: false, clock: fixedClock });
    expect(result.written).toEqual(['.alf-agent-id', 'SOUL.md', 'config.yaml', 'memories/MEMORY.md', 'memories/USER.md', 'state.db']);
    expect(await readFile(path.join(out, 'memories/MEMORY.md'), 'utf8')).toBe(MEMORY);
    expect(await readFile(path.join(out, 'memories/USER.md'), 'utf8')).toBe(USER);
    for (const table of ['sessions', 'messages']) {
      expect(dumpTable(path.join(out, 'state.db'), table)).toEqual(dumpTable(path.join(src, 'state.db'), table));
    }
    const db = new Database(path.join(out, 'state.db'), { readonly: true });
    expect(db.prepare("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'grep'").all()).toEqual([{ rowid: 2 }]);
    db.close();

    const again = await exportHome(out);
    expect(again.agentId).toBe(exported.agentId);
    const sessionsOf = (records: typeof exported.records) => records.filter((r) => r.source.origin === 'state_db');
    expect(canonicalJson(sessionsOf(again.records))).toBe(canonicalJson(sessionsOf(exported.records)));
    expect(again.records.map((r) => r.id)).toEqual(exported.records.map((r) => r.id));
    // The same raw bytes, the DDL sidecar included: a sync of the restored home has nothing to send.
    expect(again.raw).toEqual(exported.raw);
  });

  it('a session record another client wrote that no state.db can hold is restore_incomplete, with nothing written', async () => {
    const exported = await exportHome(await source());
    const withRaw = (mutate: (raw: { session: Record<string, unknown>; messages: Record<string, unknown>[] }) => void) => {
      const snapshot = structuredClone(snapshotOf(exported));
      const record = snapshot.records.find((r) => r.source.origin === 'state_db')!;
      mutate(record.raw_source_format as never);
      return { snapshot, id: record.id };
    };
    const cases = [
      withRaw((raw) => { raw.session.id = null; }),
      withRaw((raw) => { raw.messages[0]!.content = { text: 'nested' }; }),
    ];
    const words = [
      (id: string) => `cannot write the agent's records back: record ${id}: its raw_source_format.session.id is null, not a session id; nothing was changed`,
      () => 'cannot write the agent\'s records back: messages.content is {"text":"nested"}, which no column holds; nothing was changed',
    ];
    for (const [i, { snapshot, id }] of cases.entries()) {
      const out = await tempDir('hermes-odd');
      const error = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock }).then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({ name: 'AdapterError', code: 'restore_incomplete', message: words[i]!(id), hint: 'restore the agent with `-r openclaw --out DIR` to read its records as OpenClaw files' });
      expect(await readdir(out)).toEqual([]);
    }
  });

  it('never restores .env or state.db from the raw channel', async () => {
    const snapshot = snapshotOf(await exportHome(await source()));
    snapshot.raw.set('raw/hermes/.env', new TextEncoder().encode('SECRET=1'));
    snapshot.raw.set('raw/hermes/state.db', new TextEncoder().encode('evil'));
    const out = await tempDir('hermes-hostile');
    const result = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.written).not.toContain('.env');
    expect(result.warnings.filter((w) => w.includes('never restored'))).toHaveLength(2);
    expect(dumpTable(path.join(out, 'state.db'), 'sessions')).toHaveLength(2);
  });

  it('live: replaces snapshot sessions, adds missing ones, leaves others and config.yaml alone', async () => {
    const src = await source();
    const snapshot = snapshotOf(await exportHome(src));
    const live = await tempDir('hermes-live');
    await cp(src, live, { recursive: true });
    const liveDb = path.join(live, 'state.db');
    const db = new Database(liveDb);
    db.prepare("DELETE FROM messages WHERE session_id = 'child'").run();
    db.prepare("DELETE FROM sessions WHERE id = 'child'").run();
    db.prepare("UPDATE messages SET content = 'tampered' WHERE id = 1").run();
    insert(db, 'sessions', { id: 'local-only', source: 'cli', started_at: T0 + 99 });
    insert(db, 'messages', { id: 3, session_id: 'local-only', role: 'user', content: 'unsynced', timestamp: T0 + 100 });
    db.close();
    await writeFiles(live, { 'config.yaml': 'api_key: real\n' });

    const result = await hermesAdapter.importSnapshot({ snapshot, target: live, live: true, clock: fixedClock });
    const sessions = dumpTable(liveDb, 'sessions').map((s) => s.id);
    expect(sessions).toEqual(['child', 'local-only', 'parent']);
    const messages = dumpTable(liveDb, 'messages');
    expect(messages.find((m) => m.id === 1)).toMatchObject({ content: 'find the bug' });
    expect(messages.find((m) => m.id === 3)).toMatchObject({ session_id: 'local-only', content: 'unsynced' });
    expect(messages.filter((m) => m.session_id === 'child').map((m) => m.content)).toEqual(['and now?']);
    expect(result.warnings.some((w) => w.includes('got a new id'))).toBe(true);
    expect(await readFile(path.join(live, 'config.yaml'), 'utf8')).toBe('api_key: real\n');
  });

  it('rebuilds MEMORY.md from curated records when the raw channel lacks it', async () => {
    const exported = await exportHome(await source());
    const snapshot = snapshotOf(exported);
    snapshot.raw.delete('raw/hermes/memories/MEMORY.md');
    const out = await tempDir('hermes-records');
    await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(await readFile(path.join(out, 'memories/MEMORY.md'), 'utf8')).toBe('User prefers Rust.\n§\nAlways run cargo fmt.\n§\nUser prefers Rust.');
  });
  it("into Hermes' own DDL (an archive without the source's DDL) a NULL started_at or message timestamp takes the restore time, said", async () => {
    // It failed the restore with SQLite's words: NOT NULL constraint failed: sessions.started_at.
    const home = await tempDir('hermes-null-times');
    const db = new Database(path.join(home, 'state.db'));
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL, ended_at REAL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL);
      INSERT INTO sessions VALUES ('s1', 'cli', NULL, NULL), ('s2', 'cli', 1700000000.5, NULL);
      INSERT INTO messages VALUES (1, 's1', 'user', 'hi', NULL), (2, 's1', 'assistant', 'hello', 1700000002.5), (3, 's2', 'user', 'ok', 1700000003.5);`);
    db.close();
    const snapshot = structuredClone(snapshotOf(await exportHome(home)));
    const key = 'raw/hermes/.alf-state-db-schema.json';
    const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
    snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl: undefined })));
    const out = await tempDir('hermes-null-times-out');
    const result = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual([
      `session "s1": started_at is NULL, which Hermes' sessions table does not hold; restored with the restore time`,
      `session "s1": 1 message with a NULL timestamp, which Hermes' messages table does not hold; restored with the restore time`,
    ]);
    const restoreTime = fixedClock().getTime() / 1000;
    const check = new Database(path.join(out, 'state.db'), { readonly: true });
    expect(check.prepare('SELECT id, started_at FROM sessions ORDER BY id').all()).toEqual([{ id: 's1', started_at: restoreTime }, { id: 's2', started_at: 1700000000.5 }]);
    expect(check.prepare('SELECT id, timestamp FROM messages ORDER BY id').all()).toEqual([{ id: 1, timestamp: restoreTime }, { id: 2, timestamp: 1700000002.5 }, { id: 3, timestamp: 1700000003.5 }]);
    check.close();
  });

  it('a full-text table whose own trigger refuses the restored rows is left empty, said; the rows are restored', async () => {
    const home = await tempDir('hermes-fts-refuses');
    const db = new Database(path.join(home, 'state.db'));
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL);
      CREATE VIRTUAL TABLE messages_fts USING fts5(content);
      INSERT INTO sessions VALUES ('s1', 'cli', 1700000000.5);
      INSERT INTO messages VALUES (1, 's1', 'user', 'hi', 1700000001.5), (2, 's1', 'assistant', 'hello', 1700000002.5);
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN INSERT INTO messages_fts(rowid, content) VALUES (7, new.content); END;`);
    db.close();
    const out = await tempDir('hermes-fts-refuses-out');
    const result = await hermesAdapter.importSnapshot({ snapshot: snapshotOf(await exportHome(home)), target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual([expect.stringMatching(/^state\.db: the full-text table messages_fts is left empty: the source's triggers, which fill it, refuse the restored rows \(.+\)$/)]);
    expect(dumpTable(path.join(out, 'state.db'), 'messages')).toEqual(dumpTable(path.join(home, 'state.db'), 'messages'));
  });

  it("into Hermes' own DDL a NULL or absent sessions.source or messages.role is restored as empty text, said (it failed with SQLite's NOT NULL error)", async () => {
    const restoreWithoutDdl = async (name: string, sql: string) => {
      const home = await tempDir(name);
      new Database(path.join(home, 'state.db')).exec(sql).close();
      const snapshot = structuredClone(snapshotOf(await exportHome(home)));
      const key = 'raw/hermes/.alf-state-db-schema.json';
      const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
      snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl: undefined })));
      const out = await tempDir(`${name}-out`);
      const result = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
      const check = new Database(path.join(out, 'state.db'), { readonly: true });
      try {
        return { warnings: result.warnings, sessions: check.prepare('SELECT id, source, started_at FROM sessions ORDER BY id').all(), messages: check.prepare('SELECT id, role, content FROM messages ORDER BY id').all() };
      } finally {
        check.close();
      }
    };
    const nulls = await restoreWithoutDdl('hermes-null-source', `
      CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL NOT NULL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT, content TEXT, timestamp REAL NOT NULL);
      INSERT INTO sessions VALUES ('s1', NULL, 1700000000.5), ('s2', 'cli', 1700000010.5);
      INSERT INTO messages VALUES (1, 's1', NULL, 'hi', 1700000001.5), (2, 's1', 'assistant', 'hello', 1700000002.5), (3, 's2', NULL, 'ok', 1700000011.5);`);
    expect(nulls.warnings).toEqual([
      `session "s1": source is NULL, which Hermes' sessions table does not hold; restored as empty text`,
      `session "s1": 1 message with a NULL or absent role, which Hermes' messages table does not hold; restored with an empty role`,
      `session "s2": 1 message with a NULL or absent role, which Hermes' messages table does not hold; restored with an empty role`,
    ]);
    expect(nulls.sessions).toEqual([{ id: 's1', source: '', started_at: 1700000000.5 }, { id: 's2', source: 'cli', started_at: 1700000010.5 }]);
    expect(nulls.messages).toEqual([{ id: 1, role: '', content: 'hi' }, { id: 2, role: 'assistant', content: 'hello' }, { id: 3, role: '', content: 'ok' }]);
    // A legacy table without the columns: absent, the same.
    const absent = await restoreWithoutDdl('hermes-absent-source', `
      CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL NOT NULL);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL);
      INSERT INTO sessions VALUES ('s1', 1700000000.5);
      INSERT INTO messages VALUES (1, 's1', 'hi', 1700000001.5);`);
    expect(absent.warnings).toEqual([
      `session "s1": source is absent, which Hermes' sessions table does not hold; restored as empty text`,
      `session "s1": 1 message with a NULL or absent role, which Hermes' messages table does not hold; restored with an empty role`,
    ]);
    expect(absent.sessions).toEqual([{ id: 's1', source: '', started_at: 1700000000.5 }]);
    expect(absent.messages).toEqual([{ id: 1, role: '', content: 'hi' }]);
  });
  it("into Hermes' own DDL a NULL rewind_count, archived or message active (NOT NULL with a default there) takes that default, said (it failed with SQLite's NOT NULL error)", async () => {
    const home = await tempDir('hermes-null-defaults');
    new Database(path.join(home, 'state.db')).exec(`
      CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, rewind_count INTEGER, archived INTEGER);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL, active INTEGER);
      INSERT INTO sessions VALUES ('s1', 'cli', 1700000000.5, NULL, 1), ('s2', 'cli', 1700000010.5, 2, NULL);
      INSERT INTO messages VALUES (1, 's1', 'user', 'hi', 1700000001.5, NULL), (2, 's1', 'assistant', 'hello', 1700000002.5, 0), (3, 's2', 'user', 'ok', 1700000011.5, NULL);`).close();
    const snapshot = structuredClone(snapshotOf(await exportHome(home)));
    const key = 'raw/hermes/.alf-state-db-schema.json';
    const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
    snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl: undefined })));
    const out = await tempDir('hermes-null-defaults-out');
    const result = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toEqual([
      `session "s1": rewind_count is NULL, which Hermes' sessions table does not hold; restored as its default 0`,
      `session "s1": 1 message with a NULL active, which Hermes' messages table does not hold; restored as its default 1`,
      `session "s2": archived is NULL, which Hermes' sessions table does not hold; restored as its default 0`,
      `session "s2": 1 message with a NULL active, which Hermes' messages table does not hold; restored as its default 1`,
    ]);
    const check = new Database(path.join(out, 'state.db'), { readonly: true });
    expect(check.prepare('SELECT id, rewind_count, archived FROM sessions ORDER BY id').all()).toEqual([{ id: 's1', rewind_count: 0, archived: 1 }, { id: 's2', rewind_count: 2, archived: 0 }]);
    expect(check.prepare('SELECT id, active FROM messages ORDER BY id').all()).toEqual([{ id: 1, active: 1 }, { id: 2, active: 0 }, { id: 3, active: 1 }]);
    check.close();
  });

  it("builds a fresh state.db from the archive's DDL only when it passes the check; else Hermes' own, said", async () => {
    const exported = await exportHome(await source());
    const snapshot = structuredClone(snapshotOf(exported));
    const elsewhere = path.join(await tempDir('hermes-ddl-elsewhere'), 'attached.db');
    const key = 'raw/hermes/.alf-state-db-schema.json';
    const sidecar = JSON.parse(new TextDecoder().decode(snapshot.raw.get(key)));
    snapshot.raw.set(key, new TextEncoder().encode(JSON.stringify({ ...sidecar, ddl: [...sidecar.ddl, `ATTACH DATABASE '${elsewhere}' AS x`] })));
    const out = await tempDir('hermes-ddl-out');
    const result = await hermesAdapter.importSnapshot({ snapshot, target: out, live: false, clock: fixedClock });
    expect(result.warnings).toContain(`raw/hermes/.alf-state-db-schema.json: the source's state.db schema was not used (its statement ${sidecar.ddl.length + 1} is not a CREATE of a table, index, trigger or view); state.db was built from Hermes' own`);
    expect(dumpTable(path.join(out, 'state.db'), 'messages')).toHaveLength(3);
    await expect(readFile(elsewhere)).rejects.toThrow(/ENOENT/);
  });
});
