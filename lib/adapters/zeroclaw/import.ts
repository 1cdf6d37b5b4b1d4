import path from 'node:path';
import Database from 'better-sqlite3';
import { unwrittenLayerWarnings } from '@/lib/adapters/shared/restore-layers';
import { AdapterError, AGENT_ID_FILE, assertRestorablePaths, assertSafeRelPath, assertWritable, fullDiskError, pathExists, writeAgentIdIfAbsent, isNeverRaw, rawFilesFor, stageRawFiles, withoutSidecars } from '@/lib/adapters/shared';
import { rfc3339 } from '@/lib/core/clock';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import type { ImportOptions, ImportResult, PlannedWrites } from '../types';
import type { ZeroclawAgent } from './agents';
import { findBrainDb, FRESH_BRAIN_DB } from './locate';
import { isEnvFile } from '@/lib/adapters/shared/walk';
import { isRestoreStagingName } from '@/lib/adapters/shared/restore-staging';
import { BRAIN_SCHEMA_SIDECAR, CONFIG_FILE, isBrainDbFile, SECRET_KEY_FILE } from './raw-files';
import { addOtherColumns, createBrainDb, LATER_MEMORY_COLUMNS } from './schema';
import { parseBrainSidecar, type BrainSidecar } from './sidecar';
import { droppedColumnWarnings, freshSliceRows, replaceLiveSlice, writeFreshSlice } from './slice-write';
import { buildFromSourceDdl, sourceDdlProblem, tableColumns, withFreshDatabase, writingLive } from './sqlite-io';


/**
 * Restores one ZeroClaw agent from a snapshot. Raw files are written byte-exact
 * (never a database file, even if an archive carries one). Into a fresh directory
 * (`live: false`) it creates `data/memory/brain.db` (ZeroClaw's store path) (the source's schema, else ZeroClaw's) holding exactly that
 * agent; into a live workspace it replaces that agent's rows in one transaction and
 * leaves every other agent untouched.
 */
export async function importZeroclaw(opts: ImportOptions): Promise<ImportResult> {
  const raw = rawFilesFor(opts.snapshot.raw, 'zeroclaw');
  const sidecar = parseBrainSidecar(raw.get(BRAIN_SCHEMA_SIDECAR));
  const manifestAgent = isJsonObject(opts.snapshot.manifest.agent) ? opts.snapshot.manifest.agent : {};
  const alfAgentId = typeof manifestAgent.id === 'string' ? manifestAgent.id : null;
  const alias = opts.runtimeAgent ?? sidecar.agent?.alias ?? (typeof manifestAgent.name === 'string' ? manifestAgent.name : 'default');
  const archivedCreatedAt = sidecar.agent?.row.created_at;
  const archived: ZeroclawAgent = {
    id: String(sidecar.agent?.id ?? alfAgentId ?? alias),
    alias,
    created_at: typeof archivedCreatedAt === 'string' ? archivedCreatedAt : rfc3339(opts.clock()),
  };
  const warnings: string[] = [];
  const existingDb = opts.live ? await findBrainDb(opts.target) : null;
  const files = rawToWrite(raw, existingDb, warnings);
  for (const rel of files.keys()) assertSafeRelPath(rel); // reject a hostile archive before the database changes
  // and anything in the way of a file (or of the fresh database), before the database changes too
  assertWritable(opts.target, [...withoutSidecars(files).keys(), ...(existingDb === null ? [FRESH_BRAIN_DB] : [])]);
  // Staged before the database is written and put in place after: a disk too full for them changes neither.
  const staged = await stageRawFiles({ target: opts.target, files, skipSidecars: true });
  let database: { rel: string; ownsAgentIdFile: boolean };
  try {
    database = existingDb === null
      ? await writeFreshDatabase(opts, archived, sidecar, warnings)
      : writeLiveDatabase(opts, existingDb, { alias, archived, agentRow: sidecar.agent?.row ?? null }, warnings);
  } catch (error) {
    await staged.discard();
    throw fullDiskError(opts.target, error) ?? error;
  }
  await staged.commit();
  const written = [database.rel, ...staged.written];
  const ownsAgentIdFile = database.ownsAgentIdFile;
  if (ownsAgentIdFile && alfAgentId !== null && (await writeAgentIdIfAbsent(opts.target, alfAgentId, warnings))) {
    written.push(AGENT_ID_FILE);
  }
  // lineage reads no identity or principals from a ZeroClaw workspace: what the snapshot holds of them is said.
  warnings.push(...unwrittenLayerWarnings('zeroclaw', opts.snapshot.layers, { identity: null, principals: null }));
  return { written: [...new Set(written)].sort(), memoryRecords: opts.snapshot.records.length, warnings };
}

/**
 * A fresh `data/memory/brain.db` (ZeroClaw's store path) holding exactly the agent, its `agents` row as the
 * source held it. Its schema is the source's own when the archive's sidecar carries it and it passes
 * `sourceDdlProblem` (so a legacy table stays legacy, an INTEGER id stays INTEGER: the database ZeroClaw
 * opened, and will migrate itself, as it did the source); otherwise (records of another runtime, a sidecar
 * without DDL, or DDL refused, which is said) ZeroClaw's own DDL, with the columns the source table had beyond
 * ZeroClaw's (`addOtherColumns`), so their values come back.
 */
async function writeFreshDatabase(opts: ImportOptions, archived: ZeroclawAgent, sidecar: BrainSidecar, warnings: string[]): Promise<{ rel: string; ownsAgentIdFile: boolean }> {
  const dbPath = path.join(opts.target, ...FRESH_BRAIN_DB.split('/'));
  if (await pathExists(dbPath)) throw new AdapterError('restore_incomplete', `refusing to overwrite ${dbPath}; restore into a live workspace instead`);
  const problem = sidecar.ddl === null ? null : sourceDdlProblem(sidecar.ddl, ['memories']);
  const sourceDdl = sidecar.ddl !== null && problem === null ? sidecar.ddl : null;
  if (problem !== null) warnings.push(`raw/zeroclaw/${BRAIN_SCHEMA_SIDECAR}: the source's brain.db schema was not used (${problem}); ${FRESH_BRAIN_DB} was built from ZeroClaw's own`);
  const agentRow: JsonObject = sidecar.agent === null ? { ...archived } : { ...sidecar.agent.row, alias: archived.alias };
  await withFreshDatabase(dbPath, async () => {
    if (sourceDdl !== null) {
      const args = { agentRow, schemaVersion: sidecar.schemaVersion, records: opts.snapshot.records };
      warnings.push(...(await buildFromSourceDdl(dbPath, sourceDdl, (schema) => {
        warnings.push(...droppedColumnWarnings(opts.snapshot.records, tableColumns(schema, 'memories')));
        return freshSliceRows(schema, args);
      })));
      return;
    }
    const db = await createBrainDb(dbPath, laterColumnsOf(opts.snapshot.records));
    try {
      addOtherColumns(db, otherColumnsOf(opts.snapshot.records));
      // ZeroClaw's agents.created_at is NOT NULL: a source value it cannot hold takes the restore time.
      if (typeof agentRow.created_at !== 'string') {
        if (sidecar.agent !== null) warnings.push(`agents row ${JSON.stringify(agentRow.id)}: created_at ${JSON.stringify(agentRow.created_at ?? null)} is not text, which ZeroClaw's agents table holds; restored with the restore time`);
        agentRow.created_at = archived.created_at;
      }
      warnings.push(...droppedColumnWarnings(opts.snapshot.records, tableColumns(db, 'memories')));
      writeFreshSlice(db, { agentRow, schemaVersion: sidecar.schemaVersion, records: opts.snapshot.records });
    } finally {
      db.close();
    }
  });
  return { rel: FRESH_BRAIN_DB, ownsAgentIdFile: true };
}

/**
 * The agent's rows of the live brain.db replaced, in one transaction; an agent the database lacks gets the
 * sidecar's whole `agents` row (`agentRow`), in the columns the live table has.
 */
function writeLiveDatabase(opts: ImportOptions, dbRel: string, agent: { alias: string; archived: ZeroclawAgent; agentRow: JsonObject | null }, warnings: string[]): { rel: string; ownsAgentIdFile: boolean } {
  const dbPath = path.join(opts.target, ...dbRel.split('/'));
  const db = new Database(dbPath, { fileMustExist: true, timeout: 10_000 });
  try {
    const outcome = writingLive(dbPath, () => replaceLiveSlice(db, { file: dbPath, ...agent, records: opts.snapshot.records }));
    warnings.push(...outcome.warnings);
    return { rel: dbRel, ownsAgentIdFile: outcome.isFirst };
  } finally {
    db.close();
  }
}

/**
 * What `importZeroclaw` writes: the raw files, and the live database it finds (or, when there is
 * none, the fresh `data/memory/brain.db`).
 */
export async function zeroclawPlannedWrites(opts: ImportOptions): Promise<PlannedWrites> {
  const existingDb = opts.live ? await findBrainDb(opts.target) : null;
  const files = withoutSidecars(rawToWrite(rawFilesFor(opts.snapshot.raw, 'zeroclaw'), existingDb, []));
  const database = existingDb ?? FRESH_BRAIN_DB;
  assertRestorablePaths(opts.target, [...files.keys(), database]); // a hostile archive: refused before the workspace is read
  return { files, database };
}

/**
 * Raw files minus the sidecar and what a ZeroClaw sync never carries (an archive may be hostile, or
 * another client's): database files, control files, a restore's staging files and marker, a `.env`
 * anywhere, and the root's `config.toml` (API keys) and `.secret_key` (the key its secrets are
 * encrypted with) — restored, an archive could point the runtime at another endpoint with the user's
 * keys, or have the secrets it writes next encrypted with a key the archive's maker holds.
 */
function rawToWrite(raw: Map<string, Uint8Array>, dbRel: string | null, warnings: string[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [rel, bytes] of raw) {
    if (rel === BRAIN_SCHEMA_SIDECAR) continue;
    if (isNeverRaw(rel) || isBrainDbFile(rel, dbRel)) {
      warnings.push(`skipped raw/zeroclaw/${rel}: database and control files are never restored from the raw channel`);
      continue;
    }
    if (isRestoreStagingName(rel)) {
      warnings.push(`skipped raw/zeroclaw/${rel}: a restore's staging files and markers are never restored from the raw channel`);
      continue;
    }
    if (isEnvFile(rel) || rel === CONFIG_FILE || rel === SECRET_KEY_FILE) {
      warnings.push(`skipped raw/zeroclaw/${rel}: secrets (a .env, config.toml, .secret_key) are never restored from the raw channel`);
      continue;
    }
    out.set(rel, bytes);
  }
  return out;
}

/** Native columns the records name beyond ZeroClaw's own, sorted (not `id`, nor the embedding's keys). */
function otherColumnsOf(records: ImportOptions['snapshot']['records']): string[] {
  const names = new Set<string>();
  for (const record of records) {
    for (const key of Object.keys(isJsonObject(record.raw_source_format) ? record.raw_source_format : {})) {
      if (!(key in LATER_MEMORY_COLUMNS) && key !== 'id' && !key.startsWith('embedding_')) names.add(key);
    }
  }
  return [...names].sort();
}

function laterColumnsOf(records: ImportOptions['snapshot']['records']): string[] {
  const names = new Set<string>();
  for (const record of records) {
    for (const key of Object.keys(record.raw_source_format ?? {})) if (key in LATER_MEMORY_COLUMNS) names.add(key);
  }
  return [...names].sort();
}


