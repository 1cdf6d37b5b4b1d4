import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareCodeUnits } from '@/lib/adapters/shared';
import { isInside } from '@/lib/adapters/shared/walk';

/**
 * Where ZeroClaw keeps `brain.db`, in the order they are tried (CONTRACT §4.4): its store
 * `<install>/data/memory/brain.db`, then the fallbacks `memory/brain.db` and `memory.db`.
 */
export const BRAIN_DB_CANDIDATES = ['data/memory/brain.db', 'memory/brain.db', 'memory.db'] as const;

/** Where a restore into a workspace without a database creates one: ZeroClaw's own store path. */
export const FRESH_BRAIN_DB = BRAIN_DB_CANDIDATES[0];

/** Companion files of a SQLite database that must never ride in the raw channel. */
export const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'] as const;

/** How deep below the workspace the shallow search for `brain.db` looks. */
export const SEARCH_DEPTH = 3;

/** What a workspace with no `brain.db` is told (the export's refusal, and the CLI's before a sync takes its lock). */
export function noBrainDbMessage(workspace: string): string {
  return `no brain.db under ${workspace} (looked for ${BRAIN_DB_CANDIDATES.join(', ')} and searched ${SEARCH_DEPTH} levels deep)`;
}

/**
 * Finds the workspace's `brain.db`: the fixed candidates first, then a shallow
 * search (depth ≤ 3, sorted, first hit) for an entry named `brain.db`. Returns the
 * workspace-relative forward-slash path, or null when there is none. A candidate is found, to be
 * refused by the sync and the restore naming it, when what stands there cannot be told from no
 * database without passing it by (`standsThere`): a `brain.db` that is no file (a directory), a
 * symbolic link to nothing in its place or on its way (`data -> /gone`), or a directory link on its
 * way out of the workspace, which a sync does not follow (`data -> /mnt/data`, whether or not a
 * `memory/brain.db` is behind it), or something other than a directory on its way (a file `data`, or a
 * link to one: a broken workspace, not one without `data/`). Passing it by would say "no brain.db", or take an older database
 * of the workspace (`memory/brain.db`) for the agent's current one: its delta would delete or revert
 * the memories made since. The refusals are raw-write.ts `databaseLink`, `databaseNotAFile` and
 * `databaseWayNotADirectory`'s.
 * Only plain absence passes a candidate by: no `data/` at all, or a `data/` (or a link to a
 * directory inside) holding no database.
 */
export async function findBrainDb(workspace: string): Promise<string | null> {
  const root = await realpath(workspace).catch(() => null);
  if (root === null) return null;
  for (const rel of BRAIN_DB_CANDIDATES) {
    if (await standsThere(workspace, root, rel)) return rel;
  }
  return searchShallow(workspace, root, '', SEARCH_DEPTH);
}

async function searchShallow(workspace: string, root: string, relDir: string, depth: number): Promise<string | null> {
  if (depth === 0) return null;
  let names: string[];
  try {
    names = (await readdir(path.join(workspace, ...relDir.split('/').filter(Boolean)))).sort(compareCodeUnits);
  } catch {
    return null;
  }
  const rel = (name: string): string => (relDir === '' ? name : `${relDir}/${name}`);
  if (names.includes('brain.db') && (await standsThere(workspace, root, rel('brain.db')))) return rel('brain.db');
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const found = await searchShallow(workspace, root, rel(name), depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Whether `rel` is where the workspace's database is, or stands for it: anything there (a file, a
 * link followed; a directory or another non-file too, which is refused, not passed by), a symbolic
 * link to nothing there, or on its way a link to nothing or out of `root`, or anything that is no
 * directory (a file `data`, a link to one, a FIFO).
 */
async function standsThere(workspace: string, root: string, rel: string): Promise<boolean> {
  const segments = rel.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const at = path.join(workspace, ...segments.slice(0, i));
    const entry = await lstat(at).catch(() => null);
    if (entry === null) return false; // not there (nor, for a directory, anything under it)
    if (entry.isSymbolicLink()) {
      const real = await realpath(at).catch(() => null);
      if (real === null) return true; // a link to nothing
      if (i < segments.length && !isInside(root, real)) return true; // a directory link out of the workspace
    }
    if (i === segments.length) break;
    // A file (or a link to one, a FIFO, ...) where a directory of the path goes: not the absence of `data/`.
    const followed = entry.isSymbolicLink() ? await stat(at).catch(() => null) : entry;
    if (!followed?.isDirectory()) return true;
  }
  return true;
}

/** The database path with each companion suffix (`brain.db`, `brain.db-wal`, ...). */
export function withCompanions(relPath: string): string[] {
  return SQLITE_COMPANIONS.map((suffix) => relPath + suffix);
}
