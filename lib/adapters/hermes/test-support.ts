/** Test support: real Hermes homes with a `state.db` built from the captured schema. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SHARED_ALF } from '@/lib/adapters/zeroclaw/test-support';

export { fixedClock, snapshotOf, tempDir } from '@/lib/adapters/zeroclaw/test-support';

export async function capturedStateSchema(): Promise<string> {
  return readFile(path.join(SHARED_ALF, 'fixtures/captured/hermes-state.db.schema.sql'), 'utf8');
}

export interface SeedSession {
  id: string;
  source: string;
  title?: string | null;
  started_at: number;
  ended_at?: number | null;
  [column: string]: unknown;
}

export interface SeedMessage {
  session_id: string;
  role: string;
  content?: string | null;
  tool_name?: string | null;
  tool_calls?: string | null;
  timestamp: number;
  [column: string]: unknown;
}

/** Creates `<home>/state.db` from the captured schema and fills it. */
export async function seedStateDb(home: string, sessions: SeedSession[], messages: SeedMessage[]): Promise<string> {
  await mkdir(home, { recursive: true });
  const file = path.join(home, 'state.db');
  const db = new Database(file);
  db.exec(await capturedStateSchema());
  db.prepare('INSERT INTO schema_version (version) VALUES (16)').run();
  for (const s of sessions) insert(db, 'sessions', { title: null, ended_at: null, ...s });
  for (const m of messages) insert(db, 'messages', m);
  db.close();
  return file;
}

export function insert(db: Database.Database, table: string, row: Record<string, unknown>): void {
  const cols = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`).run(row);
}

export function dumpTable(file: string, table: string): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** Writes files under a home (parent directories created). */
export async function writeFiles(home: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(home, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
}
