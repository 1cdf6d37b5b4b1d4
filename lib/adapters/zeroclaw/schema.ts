import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { quoteIdent, tableColumns, type Db } from './sqlite-io';

/**
 * ZeroClaw's `brain.db` DDL as ZeroClaw itself creates it (the multi-agent layout,
 * with the FTS5 index kept by triggers). A fresh restore uses it when the archive does not say
 * what the source's schema was (its sidecar has no DDL, or DDL `sourceDdlProblem` refuses: an
 * untrusted archive's SQL runs only when it is plain `CREATE` statements, checked in a sandbox first).
 */
export const BRAIN_DB_DDL = `
CREATE TABLE embedding_cache (
                content_hash TEXT PRIMARY KEY,
                embedding    BLOB NOT NULL,
                created_at   TEXT NOT NULL,
                accessed_at  TEXT NOT NULL
            );
CREATE INDEX idx_cache_accessed ON embedding_cache(accessed_at);
CREATE TABLE agents (
                id          TEXT PRIMARY KEY,
                alias       TEXT NOT NULL UNIQUE,
                created_at  TEXT NOT NULL
             );
CREATE TABLE IF NOT EXISTS "memories" (
                id            TEXT PRIMARY KEY,
                key           TEXT NOT NULL,
                content       TEXT NOT NULL,
                category      TEXT NOT NULL DEFAULT 'core',
                embedding     BLOB,
                created_at    TEXT NOT NULL,
                updated_at    TEXT NOT NULL,
                session_id    TEXT,
                namespace     TEXT DEFAULT 'default',
                importance    REAL DEFAULT 0.5,
                superseded_by TEXT,
                agent_id      TEXT NOT NULL REFERENCES agents(id),
                UNIQUE (agent_id, key)
             );
CREATE INDEX idx_memories_category  ON memories(category);
CREATE INDEX idx_memories_key       ON memories(key);
CREATE INDEX idx_memories_session   ON memories(session_id);
CREATE INDEX idx_memories_namespace ON memories(namespace);
CREATE INDEX idx_memories_agent_id  ON memories(agent_id);
CREATE VIRTUAL TABLE memories_fts USING fts5(
                key, content, content=memories, content_rowid=rowid
             );
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
                INSERT INTO memories_fts(rowid, key, content)
                VALUES (new.rowid, new.key, new.content);
             END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
                INSERT INTO memories_fts(memories_fts, rowid, key, content)
                VALUES ('delete', old.rowid, old.key, old.content);
             END;
CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
                INSERT INTO memories_fts(memories_fts, rowid, key, content)
                VALUES ('delete', old.rowid, old.key, old.content);
                INSERT INTO memories_fts(rowid, key, content)
                VALUES (new.rowid, new.key, new.content);
             END;
CREATE TABLE schema_version (
            component  TEXT PRIMARY KEY,
            version    INTEGER NOT NULL,
            applied_at TEXT NOT NULL
         );
CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Columns later ZeroClaw versions add to `memories`, with their declarations. */
export const LATER_MEMORY_COLUMNS: Readonly<Record<string, string>> = {
  kind: 'TEXT',
  pinned: 'INTEGER NOT NULL DEFAULT 0',
  tenant_id: 'TEXT',
};

/** Creates a fresh `brain.db` (parent directories included) from `BRAIN_DB_DDL`. */
export async function createBrainDb(dbPath: string, laterColumns: readonly string[] = []): Promise<Db> {
  await mkdir(path.dirname(dbPath), { recursive: true });
  const db = new Database(dbPath);
  try {
    db.exec(BRAIN_DB_DDL);
    addLaterColumns(db, laterColumns);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Adds the named later columns (`kind`, `pinned`, `tenant_id`) the table lacks. */
export function addLaterColumns(db: Db, names: readonly string[]): void {
  const present = new Set(tableColumns(db, 'memories'));
  for (const name of names) {
    const decl = LATER_MEMORY_COLUMNS[name];
    if (decl === undefined || present.has(name)) continue;
    // Unquoted, as ZeroClaw adds them: SQLite keeps the statement's text in the schema (the DDL sidecar).
    db.exec(`ALTER TABLE memories ADD COLUMN ${name} ${decl}`);
  }
}

/** Names of a table's rowid, which the FTS triggers read: a column of that name is never added. */
const ROWID_NAMES = new Set(['rowid', 'oid', '_rowid_']);

/** Most columns a fresh restore adds beyond ZeroClaw's own (`addOtherColumns`); any others are said as left out. */
export const MAX_OTHER_COLUMNS = 100;

/**
 * Adds to a fresh `memories` table the columns the source table had beyond ZeroClaw's own (another
 * writer's, named by the records' `raw_source_format`), quoted and with no declared type, so that a
 * restore writes their values back as they were. Only names come from the archive, never SQL; a name
 * SQLite cannot take (empty, holding NUL), a rowid's name and those past `MAX_OTHER_COLUMNS` are not added.
 */
export function addOtherColumns(db: Db, names: readonly string[]): void {
  const present = new Set(tableColumns(db, 'memories').map((c) => c.toLowerCase()));
  let added = 0;
  for (const name of names) {
    if (added === MAX_OTHER_COLUMNS) break;
    if (name === '' || name.includes('\0') || present.has(name.toLowerCase()) || ROWID_NAMES.has(name.toLowerCase())) continue;
    db.exec(`ALTER TABLE memories ADD COLUMN ${quoteIdent(name)}`);
    present.add(name.toLowerCase());
    added++;
  }
}

