import { lstatSync, readdirSync } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Lists every regular file under `root/relDir`, recursively, as forward-slash paths
 * relative to `root`, sorted by code unit so the result never depends on the
 * filesystem's listing order. Symlinks are followed only when their target stays
 * inside `root` (a workspace must not leak files from elsewhere); sockets, FIFOs and
 * devices are skipped. A missing `relDir` yields an empty list.
 */
export async function walkFiles(root: string, relDir = ''): Promise<string[]> {
  const rootReal = await realpath(root);
  const out: string[] = [];
  await walkInto(rootReal, relDir.replace(/\/+$/, ''), out, new Set());
  return out.sort(compareCodeUnits);
}

async function walkInto(rootReal: string, relDir: string, out: string[], visited: Set<string>): Promise<void> {
  const abs = relDir === '' ? rootReal : path.join(rootReal, ...relDir.split('/'));
  const kind = await entryKind(rootReal, abs);
  if (kind !== 'dir') return;
  const real = await realpath(abs);
  if (visited.has(real)) return; // a symlinked directory loop
  visited.add(real);
  const entries = await readdir(abs, { withFileTypes: true });
  const names = entries.map((entry) => entry.name);
  // A plain file or directory is known from its directory entry; only the rest (symlinks,
  // anything unusual) need lstat and realpath, looked up concurrently. Directories are then
  // entered one by one in listing order, and the result is sorted in the end.
  const kinds = await mapLimit(entries, IO_CONCURRENCY, async (entry): Promise<EntryKind> =>
    entry.isFile() ? 'file' : entry.isDirectory() ? 'dir' : entryKind(rootReal, path.join(abs, entry.name)));
  for (let i = 0; i < names.length; i++) {
    const rel = relDir === '' ? names[i]! : `${relDir}/${names[i]!}`;
    if (kinds[i] === 'file') out.push(rel);
    else if (kinds[i] === 'dir') await walkInto(rootReal, rel, out, visited);
  }
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
 * a file elsewhere is treated as absent, as `walkFiles` does).
 */
export async function isFileInside(root: string, relPath: string): Promise<boolean> {
  const rootReal = await realpath(root);
  return (await entryKind(rootReal, path.join(rootReal, ...relPath.split('/')))) === 'file';
}

type EntryKind = 'file' | 'dir' | 'skip';

async function entryKind(rootReal: string, abs: string): Promise<EntryKind> {
  let info;
  try {
    info = await lstat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'skip';
    throw error;
  }
  if (info.isSymbolicLink()) {
    let target: string;
    try {
      target = await realpath(abs);
    } catch {
      return 'skip'; // dangling link
    }
    if (!isInside(rootReal, target)) return 'skip';
    info = await stat(abs);
  }
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'dir';
  return 'skip';
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
