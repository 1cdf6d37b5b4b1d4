import { statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isFileInside, readOrMintAgentId } from '@/lib/adapters/shared';
import { fileInside, isRefusedTarget } from '@/lib/adapters/shared/walk';
import { AdapterError, requireWorkspace } from '@/lib/adapters/shared/errors';
import { stagingWarnings } from '@/lib/adapters/shared/restore-staging';
import { withReadCopy } from '@/lib/adapters/zeroclaw/sqlite-io';
import { assertDatabaseAccessibleForSync, assertDatabaseReadableForSync } from '@/lib/adapters/shared/raw-write';
import { rfc3339 } from '@/lib/core/clock';
import type { JsonObject, JsonValue } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import type { ExportOptions, ExportResult } from '../types';
import { CURATED_FILE, readCuratedRecords } from './curated';
import { identityLayer, principalsLayer, SOUL_FILE, USER_FILE } from './layers';
import { collectRawFiles, refusesLinkTo, STATE_DB_FILE, STATE_SCHEMA_SIDECAR } from './raw-files';
import { readStateDb, sessionRecord, type StateDbContent } from './sessions';

/**
 * Exports a Hermes home (CONTRACT §4.5): curated `memories/MEMORY.md` entries, one
 * record per `state.db` session (read from a consistent copy, never written), the
 * SOUL.md identity and USER.md principal layers, and the allowlisted raw files.
 */
export async function exportHermes(opts: ExportOptions): Promise<ExportResult> {
  const home = opts.workspace;
  requireWorkspace(home);
  // A state.db that is a link to a secret or a control file (`state.db -> .env`), out of the home
  // (`state.db -> /elsewhere/state.db`) or to nothing is refused before anything is read or written
  // (the agent id not minted either): taken for no database, the delta deleted every session.
  assertDatabaseReadableForSync(home, STATE_DB_FILE, refusesLinkTo);
  assertStateDbNotOtherThanFile(home);
  assertDatabaseAccessibleForSync(home, STATE_DB_FILE);
  const agentId = await readOrMintAgentId({ workspace: home, runtime: 'hermes', persist: opts.persistAgentId });
  opts.onAgentId?.(agentId);
  const now = rfc3339(opts.clock());
  const textWarnings: string[] = [];
  const curated = await readCuratedRecords(home, agentId, await readText(home, CURATED_FILE, textWarnings));
  const state = (await isFileInside(home, STATE_DB_FILE)) ? await withReadCopy(path.join(home, STATE_DB_FILE), readStateDb) : null;
  const timeWarnings: string[] = [];
  const sessions = (state?.sessions ?? []).map(({ session, messages }) => sessionRecord({ session, messages, agentId, now, warnings: timeWarnings }));
  assertDistinctSessions(sessions);
  const { files, excludedByAlfignore, staging, linkWarnings } = await collectRawFiles(home);
  if (state !== null) files.set(STATE_SCHEMA_SIDECAR, sidecarBytes(state));
  return {
    runtime: 'hermes',
    agentId,
    agentName: await agentName(home),
    records: [...curated, ...sessions],
    raw: new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    layers: await layersOf(home, agentId, textWarnings),
    excludedByAlfignore,
    warnings: [...textWarnings, ...(state?.warnings ?? []), ...timeWarnings, ...(state?.orphanMessages ?? []).map(
      ({ sessionId, count }) =>
        `state.db: ${count} message${count === 1 ? '' : 's'} of session ${JSON.stringify(sessionId)}, which its sessions table does not hold, ${count === 1 ? 'is' : 'are'} not synced (a restore will not have ${count === 1 ? 'it' : 'them'})`,
    ), ...stagingWarnings(home, staging), ...linkWarnings],
  };
}

/**
 * A `state.db` that is there but is no file — a directory, or a link inside the home to one — is not
 * taken for no database: its sync would delete every session at the head. Refused before anything is
 * read or written (`workspace_file_invalid`), as a restore into the home refuses to write over it.
 */
function assertStateDbNotOtherThanFile(home: string): void {
  const abs = path.join(home, STATE_DB_FILE);
  const info = statSync(abs, { throwIfNoEntry: false });
  if (info === undefined || info.isFile()) return;
  throw new AdapterError('workspace_file_invalid', `cannot sync ${home}: its database ${STATE_DB_FILE} is ${info.isDirectory() ? 'a directory' : 'not a regular file'}, not Hermes' SQLite file; it is not taken for no database (its sessions would be deleted); nothing was read or sent`, {
    hint: `put Hermes' ${STATE_DB_FILE} in place of ${abs} (or remove it if this home has no sessions), then sync again`,
  });
}

/**
 * Two sessions whose ids make one record id (a `sessions` table without its PRIMARY KEY holding an id
 * twice; NULL beside 'null'; 5 beside '5') cannot both travel: said here, naming them, instead of an
 * archive refused as malformed.
 */
function assertDistinctSessions(records: readonly MemoryRecord[]): void {
  const seen = new Map<string, JsonValue>();
  for (const record of records) {
    const id = (record.raw_source_format as { session: JsonObject }).session.id ?? null;
    if (!seen.has(record.id)) {
      seen.set(record.id, id);
      continue;
    }
    throw new AdapterError('bad_store', `state.db: the sessions with id ${JSON.stringify(seen.get(record.id))} and id ${JSON.stringify(id)} make the same record id ${record.id}, so they cannot be synced as two sessions`, {
      hint: 'give each session its own text id (Hermes keeps them unique), then sync again (nothing was uploaded)',
    });
  }
}

async function layersOf(home: string, agentId: string, warnings: string[]): Promise<ExportResult['layers']> {
  const layers: Partial<Record<'identity' | 'principals', JsonObject>> = {};
  const soul = await readText(home, SOUL_FILE, warnings);
  if (soul !== null) layers.identity = await identityLayer(home, agentId, soul);
  const user = await readText(home, USER_FILE, warnings);
  if (user !== null) layers.principals = await principalsLayer(home, agentId, user);
  return layers;
}

/**
 * A workspace file's text, or null when it is absent (or leaves the workspace, or is a link to a
 * file the raw channel refuses to carry under another name: `SOUL.md -> config.yaml`, whose text
 * would become the identity). One that is not UTF-8 is read with U+FFFD for those bytes, and said
 * in `warnings` (its raw copy keeps the bytes).
 */
export async function readText(home: string, rel: string, warnings?: string[]): Promise<string | null> {
  const file = await fileInside(home, rel);
  if (file === null || (file.target !== undefined && isRefusedTarget(file.target, refusesLinkTo))) return null;
  const bytes = await readFile(path.join(home, ...rel.split('/')));
  const text = bytes.toString('utf8');
  if (warnings && !Buffer.from(text, 'utf8').equals(bytes)) {
    warnings.push(`${rel} is not UTF-8: its records and layers hold U+FFFD for the bytes that are not (the file itself is carried and restored as it is)`);
  }
  return text;
}

/** The Hermes home's directory name without leading dots (`~/.hermes` → `hermes`). */
async function agentName(home: string): Promise<string> {
  const base = path.basename(await realpath(home)).replace(/^\.+/, '');
  return base.length > 0 ? base : 'hermes';
}

function sidecarBytes(state: StateDbContent): Uint8Array {
  const doc = { schema_version: state.schemaVersion, ddl: state.ddl };
  return new TextEncoder().encode(`${JSON.stringify(doc, null, 2)}\n`);
}
