import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isNeverRaw, loadAlfIgnore, walkFiles } from '@/lib/adapters/shared';
import { fileInside, isEnvFile, linkWarningsOf, refusedLinkTargets } from '@/lib/adapters/shared/walk';
import { isStagingPath, rootStagingFiles } from '@/lib/adapters/shared/restore-staging';
import { RAW_DIRS } from '../raw-dirs';
import { withCompanions } from './locate';

/** Raw-channel sidecar holding the brain.db DDL and the exported agent's `agents` row. */
export const BRAIN_SCHEMA_SIDECAR = '.alf-brain-db-schema.json';

/** ZeroClaw's configuration in the workspace's root (its API keys): never carried, nor through a link. */
export const CONFIG_FILE = 'config.toml';

/**
 * The key ZeroClaw encrypts the secrets of `config.toml` with, beside it (zeroclaw-labs/zeroclaw
 * `src/security/secrets.rs`: `SecretStore::new(zeroclaw_dir)` keeps it at `<dir>/.secret_key`, 0600):
 * never carried, nor through a link.
 */
export const SECRET_KEY_FILE = '.secret_key';

/**
 * The files ZeroClaw never carries under another name, so never through a link, and a restore never
 * writes through one (besides a `.env` and a control file, which no runtime does): the database
 * (`dbRelPath`, and any `brain.db`) and its companions, `config.toml` (API keys) and `.secret_key`.
 */
export function refusesLinkTo(target: string, dbRelPath: string | null): boolean {
  return isBrainDbFile(target, dbRelPath) || target === CONFIG_FILE || target === SECRET_KEY_FILE;
}

/** Root prose files ZeroClaw keeps beside its memory. */
export const ZEROCLAW_ROOT_FILES = ['SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'USER.md', 'TOOLS.md', 'HEARTBEAT.md'] as const;

/** True for any SQLite database file of the store (`brain.db` and its `-wal`/`-shm`/`-journal`). */
export function isBrainDbFile(relPath: string, dbRelPath: string | null): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (withCompanions('brain.db').includes(base)) return true;
  return dbRelPath !== null && withCompanions(dbRelPath).includes(relPath);
}

/**
 * The workspace files ZeroClaw carries raw (CONTRACT §3.3): the root prose files and
 * `memory/**`, never the database itself or its companions, never a `.env` (`memory/.env`), never `.alf-synced.json`
 * or `.alf-agent-id`, filtered by `.alfignore`. Keys are workspace-relative paths. A restore's
 * staging files are left out and listed (`staging`: those of the root too), and the links not
 * followed are said in `linkWarnings`: a directory link back up to its directory or above, and a
 * link (a root file looked up by name as one a walk lists) to a file ZeroClaw never carries under
 * another name — the database or a companion, its `config.toml` (API keys) or `.secret_key`, a
 * `.env`, a control file — and a link that leads out of the workspace.
 */
export async function collectRawFiles(workspace: string, dbRelPath: string | null): Promise<{
  files: Map<string, Uint8Array>;
  excludedByAlfignore: number;
  staging: string[];
  linkWarnings: string[];
}> {
  const ignored = await loadAlfIgnore(workspace);
  const found: string[] = [];
  const linkTargets = new Map<string, string>();
  const outside = new Map<string, string>();
  for (const name of ZEROCLAW_ROOT_FILES) {
    const file = await fileInside(workspace, name, outside);
    if (file === null) continue;
    found.push(name);
    if (file.target !== undefined) linkTargets.set(name, file.target);
  }
  const skippedLinks: string[] = [];
  found.push(...(await walkFiles(workspace, RAW_DIRS.zeroclaw, skippedLinks, linkTargets, outside)));
  // A link is judged by what it leads to as well: `memory/copy -> brain.db` is the database, and
  // `memory/c -> ../config.toml` ZeroClaw's configuration with its keys. A plain copy of it in
  // `memory/` is a file the user put there, and is carried as any other.
  const { kept: candidates, refused } = refusedLinkTargets(found, linkTargets, (target) => refusesLinkTo(target, dbRelPath));
  const files = new Map<string, Uint8Array>();
  const staging = rootStagingFiles(workspace, RAW_DIRS.zeroclaw);
  let excludedByAlfignore = 0;
  for (const rel of candidates) {
    if (isNeverRaw(rel) || isEnvFile(rel) || isBrainDbFile(rel, dbRelPath)) continue; // a `.env` anywhere: secrets (CONTRACT §9)
    if (isStagingPath(rel)) {
      staging.push(rel);
      continue;
    }
    if (ignored(rel)) {
      excludedByAlfignore++;
      continue;
    }
    files.set(rel, new Uint8Array(await readFile(path.join(workspace, ...rel.split('/')))));
  }
  return { files, excludedByAlfignore, staging, linkWarnings: linkWarningsOf(workspace, skippedLinks, refused, ignored, outside) };
}
