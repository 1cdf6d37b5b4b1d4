import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isNeverRaw, loadAlfIgnore, walkFiles } from '@/lib/adapters/shared';
import { fileInside, linkWarningsOf, refusedLinkTargets } from '@/lib/adapters/shared/walk';
import { isStagingPath, rootStagingFiles } from '@/lib/adapters/shared/restore-staging';
import { RAW_DIRS } from '../raw-dirs';
import { redactConfigYaml } from './redact';

/** Raw-channel sidecar with the `state.db` DDL. */
export const STATE_SCHEMA_SIDECAR = '.alf-state-db-schema.json';
export const STATE_DB_FILE = 'state.db';
export const CONFIG_FILE = 'config.yaml';
/**
 * Hermes' auth store in its home (NousResearch hermes-agent `hermes_cli/auth.py`: "~/.hermes/auth.json
 * holds per-provider state, the credential pool", OAuth tokens, written 0600): never carried.
 */
export const AUTH_FILE = 'auth.json';

const RAW_ROOT_FILES = ['SOUL.md'] as const;

/**
 * Paths the Hermes raw channel never carries, wherever they appear: `.env` files
 * (secrets), `state.db` and its companions (sessions travel as records), and the
 * sync client's control files.
 */
export function isForbiddenRaw(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (base === '.env' || base.startsWith('.env.')) return true;
  if (/^state\.db(?:-wal|-shm|-journal)?$/.test(base)) return true;
  return isNeverRaw(relPath);
}

/**
 * The files Hermes never carries under another name, so never through a link, and a restore never
 * writes through one (besides a `.env` and a control file, which no runtime does): `state.db` and
 * its companions, `config.yaml`, which would go unredacted, and the home's `auth.json` (OAuth
 * tokens and API keys), which the raw channel never carries at all.
 */
export function refusesLinkTo(target: string): boolean {
  return isForbiddenRaw(target) || target === CONFIG_FILE || target === AUTH_FILE;
}

/**
 * The Hermes allowlist (CONTRACT §3.3): redacted `config.yaml`, SOUL.md,
 * `memories/**`, `skill-bundles/**`, `cron/**`, filtered by `.alfignore`. The DDL
 * sidecar is added by the exporter. Keys are workspace-relative paths. A restore's staging files
 * are left out and listed (`staging`: those of the root too), and the links not followed are said
 * in `linkWarnings`: a directory link back up to its directory or above, and a link (a root file
 * looked up by name as one a walk lists) to a file Hermes never carries under another name — a
 * `.env`, `state.db` and its companions, `config.yaml` (it would go unredacted), `auth.json`, a
 * control file — and a link that leads out of the home.
 */
export async function collectRawFiles(home: string): Promise<{ files: Map<string, Uint8Array>; excludedByAlfignore: number; staging: string[]; linkWarnings: string[] }> {
  const ignored = await loadAlfIgnore(home);
  const found: string[] = [];
  const linkTargets = new Map<string, string>();
  const outside = new Map<string, string>();
  for (const name of [CONFIG_FILE, ...RAW_ROOT_FILES]) {
    const file = await fileInside(home, name, outside);
    if (file === null) continue;
    found.push(name);
    if (file.target !== undefined) linkTargets.set(name, file.target);
  }
  const skippedLinks: string[] = [];
  // One walk of the three directories: a link from one to another (`memories/jobs -> ../cron`) carries nothing twice.
  found.push(...(await walkFiles(home, RAW_DIRS.hermes, skippedLinks, linkTargets, outside)));
  // A link is judged by what it leads to as well: `memories/x -> ../.env` is a `.env`, and
  // `SOUL.md -> config.yaml` would carry it unredacted.
  const { kept: candidates, refused } = refusedLinkTargets(found, linkTargets, refusesLinkTo);
  const files = new Map<string, Uint8Array>();
  const staging = rootStagingFiles(home, RAW_DIRS.hermes);
  let excludedByAlfignore = 0;
  for (const rel of candidates) {
    if (isForbiddenRaw(rel)) continue;
    if (isStagingPath(rel)) {
      staging.push(rel);
      continue;
    }
    if (ignored(rel)) {
      excludedByAlfignore++;
      continue;
    }
    const bytes = await readFile(path.join(home, ...rel.split('/')));
    files.set(rel, rel === CONFIG_FILE ? redactedConfig(bytes) : new Uint8Array(bytes));
  }
  return { files, excludedByAlfignore, staging, linkWarnings: linkWarningsOf(home, skippedLinks, refused, ignored, outside) };
}

/**
 * `config.yaml` redacted, every other byte as it was: a file that is not UTF-8 is read and written
 * back as Latin-1, byte for byte (its keys are ASCII either way), instead of U+FFFD for those bytes.
 */
function redactedConfig(bytes: Buffer): Uint8Array {
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(bytes)) return new TextEncoder().encode(redactConfigYaml(text));
  return new Uint8Array(Buffer.from(redactConfigYaml(bytes.toString('latin1')), 'latin1'));
}
