/** Test support: real `brain.db` files built from the captured ZeroClaw schema. */
import { mkdtemp, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { toArchiveRaw } from '@/lib/adapters/shared';
import type { ExportResult } from '../types';

export const SHARED_ALF = path.resolve(process.cwd(), '../shared/alf');

export const fixedClock = (): Date => new Date('2026-03-01T00:00:00Z');

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `lineage-${prefix}-`));
}

/** The captured brain.db DDL (reference data, read only by tests). */
export async function capturedBrainSchema(): Promise<string> {
  return readFile(path.join(SHARED_ALF, 'fixtures/captured/zeroclaw-brain.db.schema.sql'), 'utf8');
}

/** ZeroClaw's pre-multi-agent `memories` table: no `agents` table, no `agent_id`, `key` unique. */
export const LEGACY_MEMORIES_DDL =
  "CREATE TABLE memories (id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE, content TEXT NOT NULL, category TEXT NOT NULL DEFAULT 'core', embedding BLOB, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, session_id TEXT)";

export interface SeedRow {
  [column: string]: unknown;
  id: string;
  key: string;
  content: string;
  category?: string;
  embedding?: Buffer | null;
  created_at: string;
  updated_at: string;
  session_id?: string | null;
  namespace?: string | null;
  importance?: number | null;
  superseded_by?: string | null;
  agent_id: string;
}

/** Creates `<workspace>/<rel>` from the captured schema with the given agents and rows. */
export async function seedBrainDb(args: {
  workspace: string;
  rel?: string;
  agents: { id: string; alias: string; created_at: string }[];
  rows: SeedRow[];
  extraColumns?: boolean;
}): Promise<string> {
  const file = path.join(args.workspace, ...(args.rel ?? 'memory/brain.db').split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(await capturedBrainSchema());
  if (args.extraColumns) {
    db.exec("ALTER TABLE memories ADD COLUMN kind TEXT; ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0; ALTER TABLE memories ADD COLUMN tenant_id TEXT;");
  }
  db.prepare("INSERT INTO schema_version VALUES ('memory', 3, '2026-01-01T00:00:00Z')").run();
  const addAgent = db.prepare('INSERT INTO agents (id, alias, created_at) VALUES (@id, @alias, @created_at)');
  for (const agent of args.agents) addAgent.run(agent);
  for (const row of args.rows) insertSeedRow(db, row);
  db.close();
  return file;
}

export function insertSeedRow(db: Database.Database, row: SeedRow & { [column: string]: unknown }): void {
  const full: Record<string, unknown> = {
    category: 'core', embedding: null, session_id: null, namespace: 'default', importance: 0.5, superseded_by: null, ...row,
  };
  const cols = Object.keys(full);
  db.prepare(`INSERT INTO memories (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`).run(full);
}

/** Packed little-endian f32 vector. */
export function f32Blob(values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => out.writeFloatLE(v, i * 4));
  return out;
}

/** A snapshot as the archive layer would hand it to `importSnapshot`. */
export function snapshotOf(result: ExportResult): AlfSnapshot {
  return {
    manifest: { alf_version: '1.0.0', agent: { id: result.agentId, name: result.agentName, source_runtime: result.runtime } },
    records: result.records,
    layers: result.layers,
    raw: toArchiveRaw(result.raw, result.runtime),
    extra: new Map(),
  };
}

/** Every column of the rows, ordered by id (BLOBs as hex), for row-for-row comparison. */
export function dumpRows(file: string, where = '', params: unknown[] = []): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT * FROM memories ${where} ORDER BY id`).all(...params) as Record<string, unknown>[];
    return rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? `hex:${v.toString('hex')}` : v])),
    );
  } finally {
    db.close();
  }
}

/** Every file under a directory (recursive, forward-slash relative paths, sorted). */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/** Bytes (hex) and mtime of each file, to show that a read left them untouched. */
export async function fileStates(root: string, rels: readonly string[]): Promise<{ rel: string; hex: string; mtimeMs: number }[]> {
  return Promise.all(
    rels.map(async (rel) => {
      const abs = path.join(root, ...rel.split('/'));
      return { rel, hex: (await readFile(abs)).toString('hex'), mtimeMs: (await stat(abs)).mtimeMs };
    }),
  );
}
