import path from 'node:path';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { assertDatabaseAccessibleForSync, assertDatabaseReadableForSync, databaseNotAFile, databaseWayNotADirectory } from '@/lib/adapters/shared/raw-write';
import { stagingWarnings } from '@/lib/adapters/shared/restore-staging';
import { rfc3339 } from '@/lib/core/clock';
import type { MemoryRecord } from '@/lib/core/record';
import type { ExportOptions, ExportResult } from '../types';
import { readLayout, resolveAlfAgentId, selectAgent, ZeroclawError, type SelectedAgent } from './agents';
import { findBrainDb, noBrainDbMessage, searchWarnings } from './locate';
import { BRAIN_SCHEMA_SIDECAR, collectRawFiles, refusesLinkTo } from './raw-files';
import { rowToRecord, textRestoresValue, toJsonScalar } from './records';
import type { JsonObject } from '@/lib/core/json';
import { captureDdl, readRowsNoting, tableExists, withReadCopy, type Db } from './sqlite-io';

/** What is read from the consistent copy of `brain.db`. */
interface BrainSlice {
  agent: SelectedAgent;
  rows: Record<string, unknown>[];
  sidecar: Uint8Array;
  /** Values a record cannot carry exactly (`readRowsNoting`). */
  warnings: string[];
  /** Whether `memories.id`'s declared type turns an id's text back into the stored value (records.ts `textRestoresValue`). */
  idTextRestores: boolean;
}

/**
 * Exports one ZeroClaw agent (CONTRACT §4.4): one record per `memories` row of that
 * agent only (`WHERE agent_id = ?`), read from a consistent copy of `brain.db`, plus
 * the raw channel (prose files, `memory/**` without the database, the DDL sidecar).
 */
export async function exportZeroclaw(opts: ExportOptions): Promise<ExportResult> {
  const notFollowed = new Map<string, string>();
  const dbRel = await findBrainDb(opts.workspace, notFollowed);
  if (dbRel === null) {
    throw new ZeroclawError('workspace_missing', noBrainDbMessage(opts.workspace));
  }
  // A brain.db that is a link to a secret or a control file (`memory/brain.db -> ../config.toml`), out
  // of the workspace (itself or a directory on its way) or to nothing is refused before it is read,
  // as a restore into the workspace refuses it.
  assertDatabaseReadableForSync(opts.workspace, dbRel, (target) => refusesLinkTo(target, dbRel));
  assertBrainDbAFile(opts.workspace, dbRel);
  assertDatabaseAccessibleForSync(opts.workspace, dbRel);
  const slice = await withReadCopy(path.join(opts.workspace, ...dbRel.split('/')), (db) =>
    readSlice(db, opts.runtimeAgent, path.join(opts.workspace, ...dbRel.split('/'))),
  );
  const agentId = await resolveAlfAgentId({ workspace: opts.workspace, agent: slice.agent, persist: opts.persistAgentId });
  opts.onAgentId?.(agentId);
  const warnings: string[] = [...slice.warnings];
  const now = rfc3339(opts.clock());
  const records: MemoryRecord[] = slice.rows.map((row) => rowToRecord(row, { agentId, now, warnings, idTextRestores: slice.idTextRestores }));
  assertDistinctIds(records, slice.rows, dbRel);
  const { files, excludedByAlfignore, staging, linkWarnings } = await collectRawFiles(opts.workspace, dbRel);
  warnings.push(...stagingWarnings(opts.workspace, staging), ...linkWarnings, ...searchWarnings(dbRel, notFollowed));
  files.set(BRAIN_SCHEMA_SIDECAR, slice.sidecar);
  return {
    runtime: 'zeroclaw',
    agentId,
    agentName: slice.agent.alias,
    records,
    raw: new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    layers: {},
    excludedByAlfignore,
    warnings,
  };
}

/**
 * A `brain.db` that is there but no file (a directory, or a link inside to one), or under something
 * other than a directory (a file `data` where ZeroClaw keeps its data directory), is neither taken for no
 * database nor passed by for another database of the workspace (an older `memory/brain.db`): either
 * way its delta would delete or revert the memories the last sync had. Refused before anything is read
 * or written (`workspace_file_invalid`), as a restore into the workspace refuses to write over it and
 * as Hermes refuses a `state.db` that is a directory.
 */
function assertBrainDbAFile(workspace: string, dbRel: string): void {
  const way = databaseWayNotADirectory(workspace, dbRel);
  if (way !== null) {
    throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${dbRel} is under ${way.at}, which is ${way.found} where ZeroClaw keeps a directory; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`, {
      hint: `put ZeroClaw's directory back in place of ${path.join(workspace, ...way.at.split('/'))} (or move what is there out of the way), then sync again`,
    });
  }
  const found = databaseNotAFile(workspace, dbRel);
  if (found === null) return;
  const abs = path.join(workspace, ...dbRel.split('/'));
  throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${dbRel} is ${found}, not ZeroClaw's SQLite file; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`, {
    hint: `put ZeroClaw's brain.db in place of ${abs}, then sync again`,
  });
}

/**
 * Two rows whose ids make the same record id (UUIDs that differ only in letter case, NULL ids,
 * or a NULL id beside the id 'null') cannot both travel: said here, naming the rows, instead
 * of an archive refused as malformed.
 */
function assertDistinctIds(records: readonly MemoryRecord[], rows: readonly Record<string, unknown>[], dbRel: string): void {
  const firstRow = new Map<string, number>();
  records.forEach((record, i) => {
    const earlier = firstRow.get(record.id);
    if (earlier === undefined) {
      firstRow.set(record.id, i);
      return;
    }
    const describe = (row: Record<string, unknown> | undefined) => `id ${JSON.stringify(row?.id ?? null)} (key ${JSON.stringify(row?.key ?? null)})`;
    throw new AdapterError('bad_store', `${dbRel}: the memories rows ${describe(rows[earlier])} and ${describe(rows[i])} make the same record id ${record.id}, so they cannot be synced as two memories`, {
      hint: 'give each row its own id (a UUID, in one letter case, never NULL), then sync again (nothing was uploaded)',
    });
  });
}

/** Selects the agent and reads exactly its rows, oldest first (ties by id); `file` names the database in errors. */
export function readSlice(db: Db, runtimeAgent: string | undefined, file: string): BrainSlice {
  const layout = readLayout(db, file);
  const agent = selectAgent(layout, runtimeAgent);
  const columns = db.prepare('PRAGMA table_info(memories)').all() as { name: string; type: string }[];
  const order = ['created_at', 'timestamp'].find((c) => columns.some((column) => column.name === c));
  const orderBy = `${order !== undefined ? `"${order}" ASC, ` : ''}id ASC`;
  const warnings: string[] = [];
  const rows =
    agent.nativeId === null
      ? readRowsNoting(db, { table: 'memories', sql: `SELECT * FROM memories ORDER BY ${orderBy}`, warnings })
      : readRowsNoting(db, { table: 'memories', sql: `SELECT * FROM memories WHERE agent_id = ? ORDER BY ${orderBy}`, params: [agent.nativeId], warnings });
  const idType = columns.find((c) => c.name === 'id')?.type ?? '';
  return { agent, rows, sidecar: sidecarBytes(db, agent, warnings), warnings, idTextRestores: textRestoresValue(idType) };
}

/**
 * Counts the selected agent's rows (0 when the agent does not exist). Without an alias
 * in a database of several agents it counts every row: for the restore decision,
 * "some memory is here" is the answer that never overwrites anything silently.
 */
export function countAgentRows(db: Db, runtimeAgent: string | undefined, file: string): number {
  if (!tableExists(db, 'memories')) return 0;
  const layout = readLayout(db, file);
  let agent: SelectedAgent;
  try {
    agent = selectAgent(layout, runtimeAgent);
  } catch (error) {
    if (!(error instanceof ZeroclawError)) throw error;
    if (error.code === 'agent_selection_ambiguous') return (db.prepare('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
    if (error.code === 'agent_not_found' || error.code === 'no_agents') return 0;
    throw error;
  }
  const row =
    agent.nativeId === null
      ? db.prepare('SELECT COUNT(*) AS n FROM memories').get()
      : db.prepare('SELECT COUNT(*) AS n FROM memories WHERE agent_id = ?').get(agent.nativeId);
  return (row as { n: number }).n;
}

/**
 * The sidecar: the database's DDL, its `schema_version` rows and the agent's `agents` row — every column
 * of it as the source holds it (a NULL or a number `created_at` too), so that a fresh restore writes it back.
 * What the agents row cannot carry exactly is said in `warnings`, as for memory rows.
 */
function sidecarBytes(db: Db, agent: SelectedAgent, warnings: string[]): Uint8Array {
  const schemaVersion = tableExists(db, 'schema_version') ? db.prepare('SELECT * FROM schema_version ORDER BY 1').all() : [];
  const doc = {
    ddl: captureDdl(db),
    schema_version: schemaVersion,
    agent: agent.nativeId === null ? null : agentRow(db, agent, warnings),
  };
  return new TextEncoder().encode(`${JSON.stringify(doc, null, 2)}\n`);
}

/**
 * The agent's `agents` row, each column a JSON value (`toJsonScalar`), read as memory rows are (`readRowsNoting`):
 * an integer beyond ±2^53 or TEXT that is not UTF-8 is said, not changed without a word.
 */
function agentRow(db: Db, agent: SelectedAgent, warnings: string[]): JsonObject {
  const [read] = readRowsNoting(db, { table: 'agents', sql: 'SELECT * FROM agents WHERE id = ? LIMIT 1', params: [agent.nativeId], warnings });
  const row = read ?? { id: agent.nativeId, alias: agent.alias, created_at: agent.createdAt };
  const out: JsonObject = {};
  for (const [column, value] of Object.entries(row)) {
    const json = toJsonScalar(value);
    if (json !== undefined) out[column] = json;
  }
  return out;
}
