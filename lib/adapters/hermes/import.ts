import path from 'node:path';
import Database from 'better-sqlite3';
import { AdapterError, AGENT_ID_FILE, assertSafeRelPath, assertWritable, fullDiskError, pathExists, writeAgentIdIfAbsent, rawFilesFor, stageRawFiles, withoutSidecars } from '@/lib/adapters/shared';
import { isJsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import type { ImportOptions, ImportResult, PlannedWrites } from '../types';
import { CURATED_FILE, ENTRY_SEPARATOR } from './curated';
import { assertOneTree, assertRestorablePaths } from '@/lib/adapters/shared/raw-write';
import { isRestoreStagingName } from '@/lib/adapters/shared/restore-staging';
import { AUTH_FILE, CONFIG_FILE, isForbiddenRaw, STATE_DB_FILE, STATE_SCHEMA_SIDECAR } from './raw-files';
import { createStateDb } from './schema';
import { identityLayer, layerFileTimes, principalsLayer, SOUL_FILE, USER_FILE } from './layers';
import { unwrittenLayerWarnings } from '@/lib/adapters/shared/restore-layers';
import { setLayerTimes } from '@/lib/adapters/shared/restore-layer-times';
import { buildFromSourceDdl, sourceDdlProblem, sqlNumber, tableColumns, withFreshDatabase, writingLive } from '@/lib/adapters/zeroclaw/sqlite-io';
import { freshSessionRows, sessionsFromRecords, writeSessions, type SessionRows } from './session-write';

/**
 * Restores a Hermes home: raw files byte-exact (never `.env` or `state.db`, even if an
 * archive carries them; a live `config.yaml` is kept because the archived one is
 * redacted), sessions rebuilt into `state.db` from the records' `raw_source_format`
 * (a fresh database with the source's schema, else our own DDL, or, live, replacing the snapshot's sessions and
 * adding missing ones in one transaction), and MEMORY.md re-joined from curated
 * records when the raw channel lacks it.
 */
export async function importHermes(opts: ImportOptions): Promise<ImportResult> {
  const warnings: string[] = [];
  const files = await rawToWrite(opts, warnings);
  for (const rel of files.keys()) assertSafeRelPath(rel);
  // No file where state.db goes, nor under it, whether or not this snapshot has sessions to write
  // there: the home's next sync and restore open it (`state.db/x` made it a directory).
  assertOneTree([...withoutSidecars(files).keys(), STATE_DB_FILE]);
  const sessions = sessionsFromRecords(opts.snapshot.records);
  // Anything in the way of a file or of state.db refuses the restore before the database changes.
  assertWritable(opts.target, [...withoutSidecars(files).keys(), ...(sessions.length > 0 ? [STATE_DB_FILE] : [])]);
  const dbPath = path.join(opts.target, STATE_DB_FILE);
  const dbExists = await pathExists(dbPath);
  if (dbExists && !opts.live) throw new AdapterError('restore_incomplete', `refusing to overwrite ${dbPath}; restore into a live home instead`);
  // Staged before state.db is written and put in place after: a disk too full for them changes neither.
  const staged = await stageRawFiles({ target: opts.target, files, skipSidecars: true });
  try {
    if (sessions.length > 0) warnings.push(...(await writeStateDb(dbPath, dbExists, sessions, stateSidecar(opts), opts.clock)));
  } catch (error) {
    await staged.discard();
    throw fullDiskError(opts.target, error) ?? error;
  }
  await staged.commit();
  // SOUL.md's and USER.md's mtimes are the layers' times, so the restored home exports the snapshot's layers.
  await setLayerTimes(opts.target, new Map([...layerFileTimes(opts.snapshot.layers, files)].filter(([rel]) => staged.written.includes(rel))));
  const written = [...(sessions.length > 0 ? [STATE_DB_FILE] : []), ...staged.written];
  const manifestAgent = isJsonObject(opts.snapshot.manifest.agent) ? opts.snapshot.manifest.agent : {};
  const agentId = typeof manifestAgent.id === 'string' ? manifestAgent.id : null;
  if (agentId !== null && (await writeAgentIdIfAbsent(opts.target, agentId, warnings))) written.push(AGENT_ID_FILE);
  warnings.push(...(await unwrittenLayers(opts, files, agentId ?? '')));
  return { written: [...new Set(written)].sort(), memoryRecords: opts.snapshot.records.length, warnings };
}

/**
 * What of the snapshot's layers the files written do not hold, read back as the export reads them
 * (`agentId`: the manifest's `agent.id`, '' when it has none).
 */
async function unwrittenLayers(opts: ImportOptions, files: ReadonlyMap<string, Uint8Array>, agentId: string): Promise<string[]> {
  const text = (rel: string) => {
    const bytes = files.get(rel);
    return bytes === undefined ? null : Buffer.from(bytes).toString('utf8');
  };
  const soul = text(SOUL_FILE);
  const user = text(USER_FILE);
  return unwrittenLayerWarnings('hermes', opts.snapshot.layers, {
    identity: soul === null ? null : await identityLayer(opts.target, agentId, soul),
    principals: user === null ? null : await principalsLayer(opts.target, agentId, user),
  });
}

/** The archive's `.alf-state-db-schema.json`, read leniently (an untrusted archive: a shape not expected is none). */
interface StateSidecar {
  ddl: string[] | null;
  /** The source's `schema_version.version`, or null when it had none. */
  schemaVersion: number | null;
}

function stateSidecar(opts: ImportOptions): StateSidecar {
  const bytes = rawFilesFor(opts.snapshot.raw, 'hermes').get(STATE_SCHEMA_SIDECAR);
  let doc: unknown = null;
  try {
    doc = bytes === undefined ? null : JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    doc = null;
  }
  if (!isJsonObject(doc)) return { ddl: null, schemaVersion: null };
  const ddl = Array.isArray(doc.ddl) && doc.ddl.every((s) => typeof s === 'string') ? (doc.ddl as string[]) : null;
  const version = typeof doc.schema_version === 'number' && doc.schema_version >= 0 ? doc.schema_version : null;
  return { ddl, schemaVersion: version };
}

/**
 * Sessions written into the live state.db (one transaction), or into a fresh one (removed again if that
 * fails). A fresh state.db has the source's own schema when the archive's sidecar carries it and
 * `sourceDdlProblem` finds none (a legacy table stays legacy, its untyped time columns keep their
 * numbers), with the source's `schema_version`; otherwise (no sidecar DDL, or DDL refused, which is
 * said) Hermes' own (`schema.ts`).
 */
async function writeStateDb(dbPath: string, live: boolean, sessions: SessionRows[], sidecar: StateSidecar, clock: () => Date): Promise<string[]> {
  if (live) {
    const db = new Database(dbPath, { fileMustExist: true, timeout: 10_000 });
    try {
      return writingLive(dbPath, () => writeSessions(db, sessions, { replace: true }));
    } finally {
      db.close();
    }
  }
  const problem = sidecar.ddl === null ? null : sourceDdlProblem(sidecar.ddl, ['sessions', 'messages']);
  const sourceDdl = sidecar.ddl !== null && problem === null ? sidecar.ddl : null;
  const warnings: string[] = problem === null ? [] : [`raw/hermes/${STATE_SCHEMA_SIDECAR}: the source's state.db schema was not used (${problem}); ${STATE_DB_FILE} was built from Hermes' own`];
  await withFreshDatabase(dbPath, async () => {
    if (sourceDdl !== null) {
      warnings.push(...(await buildFromSourceDdl(dbPath, sourceDdl, (schema) => {
        const fresh = freshSessionRows(schema, sessions);
        warnings.push(...fresh.warnings);
        if (sidecar.schemaVersion !== null && tableColumns(schema, 'schema_version').includes('version')) {
          return new Map([['schema_version', [{ version: sqlNumber(sidecar.schemaVersion) }]], ...fresh.rows]);
        }
        return fresh.rows;
      })));
      return;
    }
    const db = await createStateDb(dbPath);
    try {
      warnings.push(...writeSessions(db, withDefaultsForNull(db, withRequiredValues(sessions, clock, warnings), warnings), { replace: false }));
    } finally {
      db.close();
    }
  });
  return warnings;
}

/**
 * Sessions as Hermes' own `state.db` (`schema.ts`) can hold them: its `sessions.started_at` and `messages.timestamp`
 * are `REAL NOT NULL`, so a NULL there (a legacy or another writer's table allowed it; sync carried it) takes the
 * restore time in unix seconds, said — as ZeroClaw's own DDL does for an `agents.created_at` that is not text; its
 * `sessions.source` and `messages.role` are `TEXT NOT NULL` with no default, so a NULL or absent one is restored as
 * empty text (no platform or role is made up), said. Each failed the restore with SQLite's "NOT NULL constraint
 * failed". A source schema (the sidecar's DDL) keeps its NULLs.
 */
function withRequiredValues(sessions: readonly SessionRows[], clock: () => Date, warnings: string[]): SessionRows[] {
  const now = clock().getTime() / 1000;
  const missing = (value: unknown): boolean => value === null || value === undefined;
  return sessions.map(({ session, messages }) => {
    const id = JSON.stringify(session.id);
    if (session.started_at === null) warnings.push(`session ${id}: started_at is NULL, which Hermes' sessions table does not hold; restored with the restore time`);
    if (missing(session.source)) warnings.push(`session ${id}: source is ${session.source === null ? 'NULL' : 'absent'}, which Hermes' sessions table does not hold; restored as empty text`);
    const nullTimes = messages.filter((m) => m.timestamp === null).length;
    if (nullTimes > 0) warnings.push(`session ${id}: ${nullTimes} message${nullTimes === 1 ? '' : 's'} with a NULL timestamp, which Hermes' messages table does not hold; restored with the restore time`);
    const noRole = messages.filter((m) => missing(m.role)).length;
    if (noRole > 0) warnings.push(`session ${id}: ${noRole} message${noRole === 1 ? '' : 's'} with a NULL or absent role, which Hermes' messages table does not hold; restored with an empty role`);
    return {
      session: { ...session, ...(session.started_at === null ? { started_at: now } : {}), ...(missing(session.source) ? { source: '' } : {}) },
      messages: messages.map((m) => ({ ...m, ...(m.timestamp === null ? { timestamp: now } : {}), ...(missing(m.role) ? { role: '' } : {}) })),
    };
  });
}

/**
 * Sessions with a NULL in a `NOT NULL` column that has a default in Hermes' own `state.db` (`sessions.rewind_count`,
 * `sessions.archived`, `messages.active`) restored with that default (the key left out), said: a legacy or another
 * writer's table allowed the NULL and sync carried it, and it failed the restore with SQLite's "NOT NULL constraint failed".
 */
function withDefaultsForNull(db: Database.Database, sessions: readonly SessionRows[], warnings: string[]): SessionRows[] {
  const defaulted = (table: string): { name: string; dflt_value: string }[] =>
    (db.prepare(`SELECT name, dflt_value FROM pragma_table_info(?) WHERE "notnull" = 1 AND dflt_value IS NOT NULL`).all(table) as { name: string; dflt_value: string }[]);
  const sessionDefaults = defaulted('sessions');
  const messageDefaults = defaulted('messages');
  return sessions.map(({ session, messages }) => {
    const id = JSON.stringify(session.id);
    const nextSession = { ...session };
    for (const c of sessionDefaults) {
      if (nextSession[c.name] !== null) continue;
      delete nextSession[c.name];
      warnings.push(`session ${id}: ${c.name} is NULL, which Hermes' sessions table does not hold; restored as its default ${c.dflt_value}`);
    }
    const nextMessages = messages.map((m) => ({ ...m }));
    for (const c of messageDefaults) {
      const nulls = nextMessages.filter((m) => m[c.name] === null);
      for (const m of nulls) delete m[c.name];
      if (nulls.length > 0) warnings.push(`session ${id}: ${nulls.length} message${nulls.length === 1 ? '' : 's'} with a NULL ${c.name}, which Hermes' messages table does not hold; restored as its default ${c.dflt_value}`);
    }
    return { session: nextSession, messages: nextMessages };
  });
}

/** What `importHermes` writes: the memory files (a live `config.yaml` kept), and `state.db` when there are sessions. */
export async function hermesPlannedWrites(opts: ImportOptions): Promise<PlannedWrites> {
  const files = withoutSidecars(await rawToWrite(opts, []));
  assertRestorablePaths(opts.target, [...files.keys(), STATE_DB_FILE]); // a hostile archive: refused before the home is read
  return { files, database: sessionsFromRecords(opts.snapshot.records).length > 0 ? STATE_DB_FILE : null };
}

async function rawToWrite(opts: ImportOptions, warnings: string[]): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const [rel, bytes] of rawFilesFor(opts.snapshot.raw, 'hermes')) {
    if (isForbiddenRaw(rel) || rel === AUTH_FILE) {
      warnings.push(`skipped raw/hermes/${rel}: secrets, state.db and control files are never restored from the raw channel`);
    } else if (isRestoreStagingName(rel)) {
      warnings.push(`skipped raw/hermes/${rel}: a restore's staging files and markers are never restored from the raw channel`);
    } else if (rel === CONFIG_FILE && opts.live && (await pathExists(path.join(opts.target, CONFIG_FILE)))) {
      warnings.push(`kept the live ${CONFIG_FILE}: the archived copy has its secrets redacted`);
    } else {
      files.set(rel, bytes);
    }
  }
  if (!files.has(CURATED_FILE)) {
    const text = curatedText(opts.snapshot.records);
    if (text !== null) files.set(CURATED_FILE, new TextEncoder().encode(text));
  }
  return files;
}

/** Curated entries in `entry_index` order joined with Hermes' `\n§\n`, or null when there are none. */
function curatedText(records: readonly MemoryRecord[]): string | null {
  const entries = records
    .filter((r) => r.namespace === 'curated')
    .map((r, i) => ({ r, index: typeof r.raw_source_format?.entry_index === 'number' ? r.raw_source_format.entry_index : i }))
    .sort((a, b) => a.index - b.index)
    .map(({ r }) => r.content);
  return entries.length > 0 ? entries.join(`\n${ENTRY_SEPARATOR}\n`) : null;
}


