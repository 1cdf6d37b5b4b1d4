import { AdapterError } from '@/lib/adapters/shared/errors';
import { NS } from '@/lib/core/ids';
import type { MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';
import { readLayout, type ZeroclawAgent } from './agents';
import { recordToRow } from './rows';
import type { BrainSidecar } from './sidecar';
import { insertRow, sqlNumber, tableColumns, tableExists, type Db, type TableRows } from './sqlite-io';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';

/**
 * The rows of a fresh `brain.db` holding one agent: its `agents` row (`agentRow`: every column as the source
 * held it), the captured `schema_version` rows (so ZeroClaw does not re-migrate), and its memories, as SQLite
 * binds them. The database (`db`: its schema, the source's or ZeroClaw's, `import.ts`) decides what is written:
 * a table or column it lacks is not — no `agents` row where `memories` has no `agent_id` (the single-agent layout).
 */
export function freshSliceRows(db: Db, args: {
  agentRow: JsonObject;
  schemaVersion: BrainSidecar['schemaVersion'];
  records: readonly MemoryRecord[];
}): TableRows {
  const columns = tableColumns(db, 'memories');
  const multi = columns.includes('agent_id') && tableExists(db, 'agents');
  const agentColumns = tableColumns(db, 'agents');
  const versionColumns = tableColumns(db, 'schema_version');
  const agentId = args.agentRow.id === undefined ? null : sqlValue(args.agentRow.id);
  const rows: TableRows = new Map();
  if (multi) {
    const row: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(args.agentRow)) if (agentColumns.includes(column)) row[column] = sqlValue(value);
    rows.set('agents', [row]);
  }
  if (['component', 'version', 'applied_at'].every((c) => versionColumns.includes(c))) rows.set('schema_version', args.schemaVersion.map((row) => ({ ...row })));
  rows.set('memories', args.records.map((record) => recordToRow(record, { agentNativeId: multi ? agentId : null, columns })));
  return rows;
}

/** Fills a freshly created `brain.db` of ZeroClaw's own DDL (its triggers keep the FTS index) with `freshSliceRows`, in one transaction. */
export function writeFreshSlice(db: Db, args: Parameters<typeof freshSliceRows>[1]): void {
  const rows = freshSliceRows(db, args);
  db.transaction(() => {
    for (const [table, tableRows] of rows) for (const row of tableRows) insertRow(db, table, row);
  })();
}

/** A sidecar value as SQLite binds it: `{"$base64": …}` a BLOB, a boolean 0/1, a whole number an INTEGER (`sqlNumber`) (`parseBrainSidecar` kept no other kind). */
function sqlValue(value: JsonValue | undefined): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return sqlNumber(value);
  if (isJsonObject(value) && typeof value.$base64 === 'string') return Buffer.from(value.$base64, 'base64');
  return value;
}

export interface LiveSliceOutcome {
  rowsWritten: number;
  /** True when the alias is the database's first agent (it owns `.alf-agent-id`). */
  isFirst: boolean;
  warnings: string[];
}

/**
 * Replaces one agent's rows in a live `brain.db` in ONE transaction: delete that
 * agent's rows, insert the restored ones. Other agents' rows are never touched; a
 * restored row whose id belongs to another agent aborts the restore before anything
 * changes. A missing alias gets an `agents` row: the sidecar's whole row (`agentRow`) as a
 * fresh restore writes it, in the columns the live table has (the archived id unless another
 * alias already uses it). A pre-multi-agent database is the single agent's: all its rows
 * are replaced.
 */
export function replaceLiveSlice(db: Db, args: {
  /** The database's path, for errors. */
  file: string;
  alias: string;
  archived: ZeroclawAgent;
  /** The source's `agents` row (the sidecar's), or null when the archive has none. */
  agentRow?: JsonObject | null;
  records: readonly MemoryRecord[];
}): LiveSliceOutcome {
  const layout = readLayout(db, args.file);
  const columns = tableColumns(db, 'memories');
  const warnings = droppedColumnWarnings(args.records, columns);
  return db.transaction((): LiveSliceOutcome => {
    if (layout.kind === 'single') {
      db.prepare('DELETE FROM memories').run();
      for (const record of args.records) insertRow(db, 'memories', recordToRow(record, { agentNativeId: null, columns }));
      return { rowsWritten: args.records.length, isFirst: true, warnings };
    }
    const agentId = ensureAgentRow(db, layout.agents, args, warnings);
    const rows = args.records.map((record) => recordToRow(record, { agentNativeId: agentId, columns }));
    assertNoForeignIds(db, rows, agentId, args.file);
    db.prepare('DELETE FROM memories WHERE agent_id = ?').run(agentId);
    for (const row of rows) insertRow(db, 'memories', row);
    const first = readLayout(db, args.file);
    const isFirst = first.kind === 'multi' && first.agents[0]?.id === agentId;
    return { rowsWritten: rows.length, isFirst, warnings };
  })();
}

/**
 * The live `agents` id of the alias; an alias the table lacks gets a row: the source's (`agentRow`, each value as
 * `writeFreshSlice` binds it) in the columns the live table has, else `archived`'s id, alias and created_at. Its id is
 * the source's unless another agent holds it. A NULL (or absent) `created_at` the live column does not allow (ZeroClaw's
 * `TEXT NOT NULL`) takes the restore time (`archived.created_at`), said.
 */
function ensureAgentRow(db: Db, agents: ZeroclawAgent[], args: { file: string; alias: string; archived: ZeroclawAgent; agentRow?: JsonObject | null }, warnings: string[]): unknown {
  const { alias, archived } = args;
  const existing = agents.find((a) => a.alias === alias);
  if (existing !== undefined) return existing.id;
  const source = args.agentRow ?? { id: archived.id, alias, created_at: archived.created_at };
  const sourceId = source.id === undefined || source.id === null ? archived.id : sqlValue(source.id);
  const idTaken = agents.some((a) => String(a.id) === String(sourceId));
  const id = idTaken ? uuidV5(NS.zeroclawAgent, `restored-agent:${alias}`) : sourceId;
  const columns = db.prepare('SELECT name, "notnull" AS required FROM pragma_table_info(?)').all('agents') as { name: string; required: number }[];
  const row: Record<string, unknown> = {};
  for (const { name } of columns) if (name in source) row[name] = sqlValue(source[name]);
  row.id = id;
  row.alias = alias;
  const createdAt = columns.find((c) => c.name === 'created_at');
  if (createdAt !== undefined && (row.created_at === undefined || (row.created_at === null && createdAt.required === 1))) {
    if (row.created_at === null) warnings.push(`agents row ${JSON.stringify(source.id ?? null)}: created_at null, which the agents table of ${args.file} does not hold (NOT NULL); restored with the restore time`);
    row.created_at = archived.created_at;
  }
  insertRow(db, 'agents', row);
  return id;
}

function assertNoForeignIds(db: Db, rows: Record<string, unknown>[], agentId: unknown, file: string): void {
  const owner = db.prepare('SELECT agent_id FROM memories WHERE id = ? AND agent_id <> ?');
  for (const row of rows) {
    const other = owner.get(row.id, agentId) as { agent_id: string } | undefined;
    if (other !== undefined) {
      throw new AdapterError('restore_incomplete', `cannot restore memory ${String(row.id)}: that id belongs to another agent in ${file}; nothing was changed`);
    }
  }
}

/** A warning per native column the records name that the table lacks (their values are not written). */
export function droppedColumnWarnings(records: readonly MemoryRecord[], columns: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const record of records) {
    for (const key of Object.keys(record.raw_source_format ?? {})) {
      if (!columns.includes(key) && !key.startsWith('embedding_') && key !== 'id' && key !== 'timestamp') missing.add(key);
    }
  }
  return [...missing].sort().map((c) => `brain.db has no memories.${c} column; restored rows leave it out`);
}
