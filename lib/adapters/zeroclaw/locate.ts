import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareCodeUnits } from '@/lib/adapters/shared';

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
 * search (depth ≤ 3, sorted, first hit) for a file named `brain.db`. Returns the
 * workspace-relative forward-slash path, or null when there is none. A symbolic link to
 * nothing there is found too (`isDatabaseThere`): the sync and the restore refuse it, naming
 * it (raw-write.ts `databaseLink`), where passing it by would say "no brain.db" or take
 * another database of the workspace for the one the link stood for.
 */
export async function findBrainDb(workspace: string): Promise<string | null> {
  for (const rel of BRAIN_DB_CANDIDATES) {
    if (await isDatabaseThere(path.join(workspace, ...rel.split('/')))) return rel;
  }
  return searchShallow(workspace, '', SEARCH_DEPTH);
}

async function searchShallow(root: string, relDir: string, depth: number): Promise<string | null> {
  if (depth === 0) return null;
  let names: string[];
  try {
    names = (await readdir(path.join(root, ...relDir.split('/').filter(Boolean)))).sort(compareCodeUnits);
  } catch {
    return null;
  }
  const rel = (name: string): string => (relDir === '' ? name : `${relDir}/${name}`);
  if (names.includes('brain.db') && (await isDatabaseThere(path.join(root, ...rel('brain.db').split('/'))))) {
    return rel('brain.db');
  }
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const found = await searchShallow(root, rel(name), depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/** A file (a link followed), or a symbolic link to nothing, which stands for a database gone. */
async function isDatabaseThere(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isFile();
  } catch {
    return (await lstat(abs).catch(() => null))?.isSymbolicLink() ?? false;
  }
}

/** The database path with each companion suffix (`brain.db`, `brain.db-wal`, ...). */
export function withCompanions(relPath: string): string[] {
  return SQLITE_COMPANIONS.map((suffix) => relPath + suffix);
}
