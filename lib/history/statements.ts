/**
 * The indexer's hot statements (the incremental path, inside every upload's transaction), prepared
 * once per database as plain better-sqlite3 statements: no query building or placeholder mapping per
 * execution. Rows are passed as objects and bound in column order, a missing value as NULL.
 */
import type { Statement } from 'better-sqlite3';
import type { Drizzle } from '@/db/client';
import type { CurrentRecord } from './index-rows';
import { indexText } from './search/index-text';
import { INSERT_WORDS } from './search/word-index';

type Row = Record<string, unknown>;

const VERSION_COLUMNS = ['agent_id', 'record_id', 'seq', 'entry_kind', 'op', 'content', 'content_sha256', 'memory_type', 'namespace',
  'status', 'origin_file', 'heading', 'tags', 'record_json', 'created_at', 'updated_at', 'observed_at', 'synced_at', 'moved_from'] as const;
const RECORD_KEY = ['agent_id', 'record_id'] as const;
const RECORD_SET_COLUMNS = ['first_seq', 'last_seq', 'deleted_seq', 'born_at', 'last_changed_at'] as const;
const RAW_VERSION_COLUMNS = ['agent_id', 'path', 'seq', 'entry_kind', 'sha256', 'size', 'deleted', 'reconstructed'] as const;
const OBJECT_COLUMNS = ['sha256', 'size', 'data'] as const;
const FACET_KEY = ['agent_id', 'facet', 'value'] as const;
const FACET_COLUMNS = [...FACET_KEY, 'count'] as const;
const FACET_CHANGE_KEY = ['agent_id', 'seq', 'facet', 'value'] as const;
const FACET_CHANGE_COLUMNS = [...FACET_CHANGE_KEY, 'change'] as const;

/** `row`'s values in `columns` order, a missing value as NULL. */
function valuesOf(row: Row, columns: readonly string[]): unknown[] {
  const values = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!] ?? null;
  return values;
}

/** A statement (an INSERT, or a DELETE by key) whose parameters are `columns` of a row object. */
function rowStatement(sqlite: Drizzle['$client'], sql: string, columns: readonly string[]): { run(row: Row): void } {
  const statement = sqlite.prepare(sql);
  return { run: (row) => void statement.run(valuesOf(row, columns)) };
}


/**
 * Whether a version has a full-text row: every version but a tombstone (migration 0005: search
 * reads creates and updates; a tombstone repeats the content its record's previous version holds).
 */
export function hasFullText(op: unknown): boolean {
  return op !== 'delete';
}

/**
 * Inserts a `record_versions` row and then its full-text row, in a statement of its own (migration
 * 0004: as a trigger's second write, the full-text insert would run in a statement savepoint, at
 * which FTS5 writes out a segment per row; here its terms stay pending until the commit).
 */
function versionInserter(sqlite: Drizzle['$client']): { run(row: Row): void } {
  const version = sqlite.prepare(`INSERT INTO record_versions (${VERSION_COLUMNS.join(', ')}) VALUES (${marks(VERSION_COLUMNS.length)})`);
  const fullText = sqlite.prepare(INSERT_WORDS);
  return {
    run(row: Row): void {
      const { lastInsertRowid } = version.run(valuesOf(row, VERSION_COLUMNS));
      if (hasFullText(row.op)) fullText.run(lastInsertRowid, indexText(row.content as string));
    },
  };
}

/**
 * Joins a `records` row `r` with its latest version `v` (the row at `r.last_seq`, the later entry
 * kind first), where its current fields live.
 */
export const LATEST_VERSION_JOIN = `JOIN record_versions v ON v.id = (
  SELECT w.id FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id
  ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)`;

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

function build(db: Drizzle) {
  const sqlite = db.$client;
  const recordColumns = [...RECORD_KEY, ...RECORD_SET_COLUMNS];
  const recordById: Statement<[string, string], CurrentRecord> = sqlite.prepare(
    `SELECT r.*, v.record_json FROM records r ${LATEST_VERSION_JOIN} WHERE r.agent_id = ? AND r.record_id = ?`);
  const rawHead: Statement<[string, string], { sha256: string | null; deleted: number }> = sqlite.prepare(
    'SELECT sha256, deleted FROM raw_file_versions WHERE agent_id = ? AND path = ? ORDER BY seq DESC, entry_kind DESC LIMIT 1');
  return {
    recordById: { get: (key: { agent_id: string; record_id: string }) => recordById.get(key.agent_id, key.record_id) },
    rawHead: { get: (key: { agent_id: string; path: string }) => rawHead.get(key.agent_id, key.path) },
    insertVersion: versionInserter(sqlite),
    upsertRecord: rowStatement(sqlite,
      `INSERT INTO records (${recordColumns.join(', ')}) VALUES (${marks(recordColumns.length)})
       ON CONFLICT (agent_id, record_id) DO UPDATE SET ${RECORD_SET_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`,
      recordColumns),
    insertObject: rowStatement(sqlite,
      `INSERT INTO raw_objects (${OBJECT_COLUMNS.join(', ')}) VALUES (${marks(OBJECT_COLUMNS.length)}) ON CONFLICT DO NOTHING`, OBJECT_COLUMNS),
    insertRawVersion: rowStatement(sqlite,
      `INSERT INTO raw_file_versions (${RAW_VERSION_COLUMNS.join(', ')}) VALUES (${marks(RAW_VERSION_COLUMNS.length)})`, RAW_VERSION_COLUMNS),
    addFacetCount: rowStatement(sqlite,
      `INSERT INTO record_facets (${FACET_COLUMNS.join(', ')}) VALUES (${marks(FACET_COLUMNS.length)})
       ON CONFLICT (agent_id, facet, value) DO UPDATE SET count = count + excluded.count`, FACET_COLUMNS),
    dropEmptyFacet: rowStatement(sqlite, 'DELETE FROM record_facets WHERE agent_id = ? AND facet = ? AND value = ? AND count = 0', FACET_KEY),
    addFacetChange: rowStatement(sqlite,
      `INSERT INTO record_facet_changes (${FACET_CHANGE_COLUMNS.join(', ')}) VALUES (${marks(FACET_CHANGE_COLUMNS.length)})
       ON CONFLICT (agent_id, seq, facet, value) DO UPDATE SET change = change + excluded.change`, FACET_CHANGE_COLUMNS),
    dropEmptyFacetChange: rowStatement(sqlite,
      'DELETE FROM record_facet_changes WHERE agent_id = ? AND seq = ? AND facet = ? AND value = ? AND change = 0', FACET_CHANGE_KEY),
  };
}

export type IndexStatements = ReturnType<typeof build>;

const cache = new WeakMap<Drizzle, IndexStatements>();

/** The prepared statements of `db`, built on first use. */
export function statements(db: Drizzle): IndexStatements {
  let found = cache.get(db);
  if (!found) cache.set(db, (found = build(db)));
  return found;
}
