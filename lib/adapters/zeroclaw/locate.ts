import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
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
 *
 * The shallow search reads nothing outside the workspace: a directory link it meets is entered only
 * when it leads to a directory inside that does not hold it (a link to its own directory or above,
 * `a -> .`, is a loop: the directory is searched under its own path). A link out of the workspace or
 * to nothing is passed by, and put in `notFollowed` (its path → where it leads) when given: a sync
 * says so beside a database the search found after it (`searchWarnings`).
 */
export async function findBrainDb(workspace: string, notFollowed?: Map<string, string>): Promise<string | null> {
  const root = await realpath(workspace).catch(() => null);
  if (root === null) return null;
  for (const rel of BRAIN_DB_CANDIDATES) {
    if (await standsThere(workspace, root, rel)) return rel;
  }
  return searchShallow({ workspace, root, notFollowed }, '', [root], SEARCH_DEPTH);
}

/**
 * What a sync says of a database the shallow search found (`dbRel`, none of the fixed candidates)
 * after passing by directory links out of the workspace or to nothing (`findBrainDb`'s `notFollowed`):
 * a database behind one of them is neither read nor taken for the agent's.
 */
export function searchWarnings(dbRel: string, notFollowed: ReadonlyMap<string, string>): string[] {
  if (notFollowed.size === 0 || (BRAIN_DB_CANDIDATES as readonly string[]).includes(dbRel)) return [];
  const links = [...notFollowed].map(([rel, to]) => `${rel} -> ${to}`).join(', ');
  return [`${dbRel} was synced as the database: the search for brain.db did not follow the symbolic link${notFollowed.size === 1 ? '' : 's'} ${links} (out of the workspace or to nothing), and a database behind ${notFollowed.size === 1 ? 'it' : 'them'} is not read; move the agent's database to data/memory/brain.db if ${dbRel} is not it`];
}

interface Search {
  workspace: string;
  root: string;
  notFollowed: Map<string, string> | undefined;
}

/** `relDir` searched (`chain`: the real paths from the root down to it), `depth` levels: the first `brain.db`, sorted. */
async function searchShallow(search: Search, relDir: string, chain: readonly string[], depth: number): Promise<string | null> {
  if (depth === 0) return null;
  const { workspace, root } = search;
  let entries: Dirent[];
  try {
    entries = (await readdir(path.join(workspace, ...relDir.split('/').filter(Boolean)), { withFileTypes: true })).sort((a, b) => compareCodeUnits(a.name, b.name));
  } catch {
    return null;
  }
  const rel = (name: string): string => (relDir === '' ? name : `${relDir}/${name}`);
  if (entries.some((e) => e.name === 'brain.db') && (await standsThere(workspace, root, rel('brain.db')))) return rel('brain.db');
  if (depth === 1) return null; // nothing deeper is read
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const real = await searchedDirectory(search, rel(entry.name), entry, chain);
    if (real === null) continue;
    const found = await searchShallow(search, rel(entry.name), [...chain, real], depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The real path of the directory `entry` (at `rel`) the search enters, null when it enters none: not a
 * directory, a link to nothing or out of the workspace (noted), or a link to a directory of `chain` (a loop).
 */
async function searchedDirectory(search: Search, rel: string, entry: Dirent, chain: readonly string[]): Promise<string | null> {
  const abs = path.join(search.workspace, ...rel.split('/'));
  if (entry.isDirectory()) return path.join(chain[chain.length - 1]!, entry.name);
  if (!entry.isSymbolicLink()) return null;
  const real = await realpath(abs).catch(() => null);
  if (real === null) {
    search.notFollowed?.set(rel, await readlink(abs).catch(() => abs));
    return null;
  }
  if (!isInside(search.root, real)) {
    if ((await stat(real).catch(() => null))?.isDirectory()) search.notFollowed?.set(rel, real);
    return null;
  }
  if (chain.includes(real)) return null;
  return (await stat(real).catch(() => null))?.isDirectory() ? real : null;
}

/**
 * Whether `rel` is where the workspace's database is, or stands for it: anything there (a file, a
 * link followed; a directory or another non-file too, which is refused, not passed by), a symbolic
 * link to nothing there, or on its way a link to nothing or out of `root`, or anything that is no
 * directory (a file `data`, a link to one, a FIFO), or what cannot be looked at (a directory on its way
 * that cannot be searched: EACCES) — only ENOENT is absence.
 */
async function standsThere(workspace: string, root: string, rel: string): Promise<boolean> {
  const segments = rel.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const at = path.join(workspace, ...segments.slice(0, i));
    let entry: Stats;
    try {
      entry = await lstat(at);
    } catch (error) {
      // Not there (nor, for a directory, anything under it); what cannot be looked at (EACCES: `chmod 000 data`) may be.
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
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
