import { lstatSync, readdirSync } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_ID_FILE, ALFIGNORE_FILE, INCLUDE_FILE, SYNCED_MARKER_FILE, SYNC_LOG_FILE } from './sync-marker';

/**
 * Lists every regular file under `root/relDir`, recursively, as forward-slash paths
 * relative to `root`, sorted by code unit so the result never depends on the
 * filesystem's listing order. Symlinks are followed only when their target stays
 * inside `root` (a workspace must not leak files from elsewhere); sockets, FIFOs and
 * devices are skipped. A missing `relDir` yields an empty list.
 *
 * A symlinked directory whose real path is the directory holding it or any ancestor of it, up to
 * and including the workspace root (`memory/loop -> ..`), is a loop: it is not entered, and its
 * path is added to `skipped` when given — whether or not the walk started at the root. So is a
 * symlink to one of the workspace's control files (`.alf-agent-id`, `.alf-synced.json`, `.alfignore`,
 * `.alf-include.json`, `.alf-sync-log.md`): those are read in their own place only. A plain file or
 * directory costs no system call beyond its directory's listing.
 *
 * `linkTargets`, when given, gets for each listed path that is a symlink to a file the
 * workspace-relative path of the file it leads to: a caller whose rule for a file goes by its name
 * (a `.env`, a database) asks it of that path too.
 */
export async function walkFiles(root: string, relDir = '', skipped?: string[], linkTargets?: Map<string, string>): Promise<string[]> {
  const rootReal = await realpath(root);
  const dir = relDir.replace(/\/+$/, '');
  const out: string[] = [];
  const walk: Walk = { rootReal, out, visited: new Set(), skipped: skipped ?? [], linkTargets };
  if (dir === '') {
    await walkInto(walk, '', rootReal, [rootReal]);
  } else {
    const abs = path.join(rootReal, ...dir.split('/'));
    if ((await entryKind(rootReal, abs)).kind !== 'dir') return [];
    // The directories the walk starts below are its ancestors too: a link back to one is a loop.
    const chain = [rootReal];
    const segments = dir.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const real = await realpath(path.join(rootReal, ...segments.slice(0, i)));
      if (chain.includes(real)) {
        walk.skipped.push(segments.slice(0, i).join('/')); // `memory -> .`: the walk would list the root again
        return [];
      }
      chain.push(real);
    }
    await walkInto(walk, dir, chain[chain.length - 1]!, chain);
  }
  return out.sort(compareCodeUnits);
}

interface Walk {
  rootReal: string;
  out: string[];
  /** Real paths of the directories entered: one reached again through another link is not walked twice. */
  visited: Set<string>;
  skipped: string[];
  linkTargets: Map<string, string> | undefined;
}

/** Walks the directory `relDir` (real path `real`), `chain` the real paths from the root down to it. */
async function walkInto(walk: Walk, relDir: string, real: string, chain: readonly string[]): Promise<void> {
  if (walk.visited.has(real)) return;
  walk.visited.add(real);
  const abs = relDir === '' ? walk.rootReal : path.join(walk.rootReal, ...relDir.split('/'));
  const entries = await readdir(abs, { withFileTypes: true });
  // A plain file or directory is known from its directory entry (a plain directory's real path is
  // its parent's joined with its name); only the rest (symlinks, anything unusual) need lstat and
  // realpath, looked up concurrently. Directories are then entered one by one in listing order,
  // and the result is sorted in the end.
  const kinds = await mapLimit(entries, IO_CONCURRENCY, async (entry): Promise<Entry> =>
    entry.isFile()
      ? { kind: 'file' }
      : entry.isDirectory()
        ? { kind: 'dir', real: path.join(real, entry.name) }
        : entryKind(walk.rootReal, path.join(abs, entry.name)));
  for (let i = 0; i < entries.length; i++) {
    const rel = relDir === '' ? entries[i]!.name : `${relDir}/${entries[i]!.name}`;
    const entry = kinds[i]!;
    if (entry.kind === 'file') {
      if (entry.real !== undefined && isControlFileElsewhere(walk.rootReal, rel, entry.real)) walk.skipped.push(rel);
      else {
        walk.out.push(rel);
        if (entry.real !== undefined) walk.linkTargets?.set(rel, path.relative(walk.rootReal, entry.real).split(path.sep).join('/'));
      }
    } else if (entry.kind === 'dir') {
      if (chain.includes(entry.real)) walk.skipped.push(rel); // a link to its own directory or above: a loop
      else await walkInto(walk, rel, entry.real, [...chain, entry.real]);
    }
  }
}

/** True when `real`, what `rel` leads to, is one of the control files in the workspace's root and `rel` is not that file. */
function isControlFileElsewhere(rootReal: string, rel: string, real: string): boolean {
  return path.dirname(real) === rootReal && CONTROL_FILES.includes(path.basename(real)) && rel !== path.basename(real);
}

const CONTROL_FILES: readonly string[] = [AGENT_ID_FILE, SYNCED_MARKER_FILE, ALFIGNORE_FILE, INCLUDE_FILE, SYNC_LOG_FILE];

/**
 * The warning a sync gives for the links a walk did not follow (`walkFiles`' `skipped`), one per
 * link; none when there are none.
 */
export function skippedLinkWarnings(skipped: readonly string[]): string[] {
  return [...new Set(skipped)].sort(compareCodeUnits).map((rel) =>
    `${rel} is a symbolic link to a directory that holds it, or to a control file of the workspace: it is not synced (the files it leads to are synced from their own place, once)`);
}

/** How many file-system calls a walk or an export keeps in flight. */
export const IO_CONCURRENCY = 16;

/**
 * `items.map(fn)` for async `fn` with at most `limit` calls in flight; results in input order.
 * Calls start in input order. The first failure rejects the whole (later calls are not started).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * True when `root/relPath` is a regular file that stays inside `root` (a symlink to
 * a file elsewhere, or to one of the workspace's control files, is treated as absent, as
 * `walkFiles` does).
 */
export async function isFileInside(root: string, relPath: string): Promise<boolean> {
  const rootReal = await realpath(root);
  const entry = await entryKind(rootReal, path.join(rootReal, ...relPath.split('/')));
  return entry.kind === 'file' && (entry.real === undefined || !isControlFileElsewhere(rootReal, relPath, entry.real));
}

/** What a walk finds at a path: a symlink followed inside the root carries the real path it leads to. */
type Entry = { kind: 'file'; real?: string } | { kind: 'dir'; real: string } | { kind: 'skip' };

async function entryKind(rootReal: string, abs: string): Promise<Entry> {
  let info;
  try {
    info = await lstat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'skip' };
    throw error;
  }
  let real: string | undefined;
  if (info.isSymbolicLink()) {
    try {
      real = await realpath(abs);
    } catch {
      return { kind: 'skip' }; // dangling link
    }
    if (!isInside(rootReal, real)) return { kind: 'skip' };
    info = await stat(abs);
  }
  if (info.isFile()) return { kind: 'file', real };
  if (info.isDirectory()) return { kind: 'dir', real: real ?? (await realpath(abs)) };
  return { kind: 'skip' };
}

/** True when `target` (a real path) is `rootReal` or under it. */
export function isInside(rootReal: string, target: string): boolean {
  const rel = path.relative(rootReal, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Sort order by UTF-16 code units, independent of locale. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `walkFiles` done synchronously, for a tree of plain files and directories only — what a
 * workspace almost always is: null as soon as an entry is anything else (a symlink, a socket),
 * and the caller takes `walkFiles`, which decides those. A sync stats every file of a workspace
 * of thousands; a promise per directory entry costs more than the listing itself.
 */
export function walkPlainFilesSync(root: string, relDir: string): string[] | null {
  const out: string[] = [];
  const dir = relDir.replace(/\/+$/, '');
  const top = lstatSync(path.join(root, ...dir.split('/')), { throwIfNoEntry: false });
  if (!top) return [];
  if (top.isSymbolicLink()) return null;
  if (!top.isDirectory()) return [];
  const visit = (rel: string): boolean => {
    for (const entry of readdirSync(path.join(root, ...rel.split('/')), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isFile()) out.push(child);
      else if (!entry.isDirectory() || !visit(child)) return false;
    }
    return true;
  };
  return visit(dir) ? out.sort(compareCodeUnits) : null;
}

/**
 * `isFileInside` done synchronously for a plain file or none; null for anything else (a symlink:
 * the caller asks `isFileInside`).
 */
export function isPlainFileSync(root: string, relPath: string): boolean | null {
  const info = lstatSync(path.join(root, ...relPath.split('/')), { throwIfNoEntry: false });
  if (!info) return false;
  if (info.isSymbolicLink()) return null;
  return info.isFile();
}
