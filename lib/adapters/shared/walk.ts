import { lstatSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { IgnoreMatcher } from './alfignore';
import { AGENT_ID_FILE, ALFIGNORE_FILE, INCLUDE_FILE, SYNCED_MARKER_FILE, SYNC_LOG_FILE } from './sync-marker';

/**
 * Lists every regular file under `root/relDir` (or under each of several directories of the root),
 * recursively, as forward-slash paths relative to `root`, sorted by code unit so the result never
 * depends on the filesystem's listing order. Symlinks are followed only when their target stays
 * inside `root` (a workspace must not leak files from elsewhere); sockets, FIFOs and devices are
 * skipped. A missing directory yields nothing.
 *
 * A directory reached under several names (as itself and through a symlink, or through two
 * symlinks) is walked once, under a name chosen by a rule that does not depend on the order the
 * filesystem lists entries in (which differs between filesystems): its own path when that lies
 * in the walked directories through plain directories only, else the smallest of the names it is
 * reached under, by code unit. The other names carry nothing and are not warned of.
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
 * (a `.env`, a database) asks it of that path too. `outside`, when given, gets each symlink met
 * (one of the walked directories itself too) that leads out of the root, with the real path it
 * leads to: it is not followed, and a sync says so (`linkWarningsOf`).
 */
export function walkFiles(root: string, relDir: string | readonly string[] = '', skipped?: string[], linkTargets?: Map<string, string>, outside?: Map<string, string>): Promise<string[]> {
  return walkFilesListed(listDir, root, relDir, skipped, linkTargets, outside);
}

/** How a walk lists a directory (an absolute path): its entries, in any order. */
export type DirLister = (abs: string) => Promise<Dirent[]>;

/**
 * Node's `readdir`, which on Unix hands the entries sorted by byte (libuv sorts them) and on
 * Windows in the filesystem's own order; the walk's result depends on neither.
 */
const listDir: DirLister = (abs) => readdir(abs, { withFileTypes: true });

/** `walkFiles` with the directories listed by `list`: what its tests present other listing orders through. */
export async function walkFilesListed(list: DirLister, root: string, relDir: string | readonly string[] = '', skipped?: string[], linkTargets?: Map<string, string>, outside?: Map<string, string>): Promise<string[]> {
  const rootReal = await realpath(root);
  const walk: Walk = { list, rootReal, out: [], visited: new Set(), skipped: skipped ?? [], linkTargets, outside, pending: new DirHeap() };
  const dirs = [...new Set((typeof relDir === 'string' ? [relDir] : relDir).map((dir) => dir.replace(/\/+$/, '')))].sort(compareCodeUnits);
  for (const dir of dirs) {
    if (dir === '') {
      walk.pending.push({ rel: '', real: rootReal, chain: [rootReal], own: true });
      continue;
    }
    const abs = path.join(rootReal, ...dir.split('/'));
    const top = await entryKind(rootReal, abs);
    if (top.kind === 'outside') outside?.set(dir, top.real); // `memory -> ~/Dropbox/memory`
    if (top.kind !== 'dir') continue;
    // The directories the walk starts below are its ancestors too: a link back to one is a loop.
    const chain = [rootReal];
    const segments = dir.split('/');
    let loop = false;
    for (let i = 1; i <= segments.length && !loop; i++) {
      const real = await realpath(path.join(rootReal, ...segments.slice(0, i)));
      if (chain.includes(real)) {
        walk.skipped.push(segments.slice(0, i).join('/')); // `memory -> .`: the walk would list the root again
        loop = true;
      } else chain.push(real);
    }
    if (!loop) walk.pending.push({ rel: dir, real: chain[chain.length - 1]!, chain, own: relativeTo(rootReal, chain[chain.length - 1]!) === dir });
  }
  // Directories are entered one by one, each in the order of `DirHeap`: all those under their own
  // path first, then the rest by name. Whichever name a directory is first taken under is its name.
  for (let next = walk.pending.pop(); next !== undefined; next = walk.pending.pop()) await walkInto(walk, next);
  return walk.out.sort(compareCodeUnits);
}

interface Walk {
  list: DirLister;
  rootReal: string;
  out: string[];
  /** Real paths of the directories entered: one reached again under another name is not walked twice. */
  visited: Set<string>;
  skipped: string[];
  linkTargets: Map<string, string> | undefined;
  /** Symlinks leading out of the root (path → the real path they lead to), when asked for. */
  outside: Map<string, string> | undefined;
  /** The directories found and not entered yet. */
  pending: DirHeap;
}

/** A directory to walk: its path in the walk, its real path, the real paths from the root down to it, and whether `rel` is its own path. */
interface PendingDir {
  rel: string;
  real: string;
  chain: readonly string[];
  own: boolean;
}

/**
 * The directories waiting to be walked, taken out in an order that depends on their names only:
 * a directory under its own path before any reached through a link, then by name (code units).
 * A subdirectory's name is longer than its parent's and sorts after it, so a directory is taken
 * under the smallest name it is reached by (among those of the same kind).
 */
export class DirHeap {
  private readonly items: PendingDir[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: PendingDir): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (dirOrder(items[parent]!, items[i]!) <= 0) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): PendingDir | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && dirOrder(items[left]!, items[least]!) < 0) least = left;
      if (right < items.length && dirOrder(items[right]!, items[least]!) < 0) least = right;
      if (least === i) return top;
      [items[least], items[i]] = [items[i]!, items[least]!];
      i = least;
    }
  }
}

function dirOrder(a: PendingDir, b: PendingDir): number {
  return a.own !== b.own ? (a.own ? -1 : 1) : compareCodeUnits(a.rel, b.rel);
}

/** Lists the directory `dir`: its files go to the output, its directories to the pending ones. */
async function walkInto(walk: Walk, dir: PendingDir): Promise<void> {
  const { rel: relDir, real, chain } = dir;
  if (walk.visited.has(real)) return;
  walk.visited.add(real);
  const abs = relDir === '' ? walk.rootReal : path.join(walk.rootReal, ...relDir.split('/'));
  const entries = await walk.list(abs);
  // A plain file or directory is known from its directory entry (a plain directory's real path is
  // its parent's joined with its name); only the rest (symlinks, anything unusual) need lstat and
  // realpath, looked up concurrently.
  const kinds = await mapLimit(entries, IO_CONCURRENCY, async (entry): Promise<Entry> =>
    entry.isFile()
      ? { kind: 'file' }
      : entry.isDirectory()
        ? { kind: 'dir', real: path.join(real, entry.name), plain: true }
        : entryKind(walk.rootReal, path.join(abs, entry.name)));
  for (let i = 0; i < entries.length; i++) {
    const rel = relDir === '' ? entries[i]!.name : `${relDir}/${entries[i]!.name}`;
    const entry = kinds[i]!;
    if (entry.kind === 'file') {
      if (entry.real !== undefined && isControlFileElsewhere(walk.rootReal, rel, entry.real)) walk.skipped.push(rel);
      else {
        walk.out.push(rel);
        if (entry.real !== undefined) walk.linkTargets?.set(rel, relativeTo(walk.rootReal, entry.real));
      }
    } else if (entry.kind === 'dir') {
      if (chain.includes(entry.real)) walk.skipped.push(rel); // a link to its own directory or above: a loop
      else if (!walk.visited.has(entry.real)) {
        walk.pending.push({ rel, real: entry.real, chain: [...chain, entry.real], own: dir.own && entry.plain === true });
      }
    } else if (entry.kind === 'outside') walk.outside?.set(rel, entry.real);
  }
}

/** The workspace-relative forward-slash path of `real`, a real path inside `rootReal`. */
function relativeTo(rootReal: string, real: string): string {
  return path.relative(rootReal, real).split(path.sep).join('/');
}

/** True when `real`, what `rel` leads to, is one of the control files in the workspace's root and `rel` is not that file. */
function isControlFileElsewhere(rootReal: string, rel: string, real: string): boolean {
  return path.dirname(real) === rootReal && CONTROL_FILES.includes(path.basename(real)) && rel !== path.basename(real);
}

const CONTROL_FILES: readonly string[] = [AGENT_ID_FILE, SYNCED_MARKER_FILE, ALFIGNORE_FILE, INCLUDE_FILE, SYNC_LOG_FILE];

/**
 * The warnings a sync gives for the links it did not follow, one per link, in path order: those a
 * walk skipped (`walkFiles`' `skipped`: a loop, a link to a control file of the root), those its
 * runtime refused for the file they lead to (`refused`: path → target, `refusedLinkTarget`) and
 * those that lead out of the workspace (`outside`: path → the real path they lead to, `walkFiles`'
 * and `fileInside`'s `outside`: a memory kept elsewhere, which the user would otherwise think
 * synced); none when there are none.
 */
export function skippedLinkWarnings(skipped: readonly string[], refused: ReadonlyMap<string, string> = new Map(), outside: ReadonlyMap<string, string> = new Map()): string[] {
  const said = new Map<string, string>();
  for (const [rel, real] of outside) {
    said.set(rel, `${rel} is a symbolic link to ${real}, outside the workspace: it is not synced (a sync carries only what lies inside the workspace; move it in, and link the other way round if something else needs it there)`);
  }
  for (const rel of skipped) said.set(rel, `${rel} is a symbolic link to a directory that holds it, or to a control file of the workspace: it is not synced (the files it leads to are synced from their own place, once)`);
  for (const [rel, target] of refused) {
    said.set(rel, `${rel} is a symbolic link to ${target}, a file of the workspace a sync never carries under another name (a secret, a database or a control file): it is not synced`);
  }
  return [...said.keys()].sort(compareCodeUnits).map((rel) => said.get(rel)!);
}

/**
 * `skippedLinkWarnings` of the links `.alfignore` does not leave out: a link under an ignored
 * directory, or ignored itself (a loop as the directory it leads to, a file link as a file), is
 * not synced anyway and is not warned of.
 */
export function linkWarningsOf(root: string, skipped: readonly string[], refused: ReadonlyMap<string, string>, ignored: IgnoreMatcher, outside: ReadonlyMap<string, string> = new Map()): string[] {
  const isDir = (rel: string) => statSync(path.join(root, ...rel.split('/')), { throwIfNoEntry: false })?.isDirectory() === true;
  return skippedLinkWarnings(
    skipped.filter((rel) => !ignored(rel, isDir(rel))),
    new Map([...refused].filter(([rel]) => !ignored(rel))),
    new Map([...outside].filter(([rel]) => !ignored(rel, isDir(rel)))),
  );
}

/** A `.env` file (`.env`, `.env.local`, at any depth): secrets, which no runtime carries through a link. */
export function isEnvFile(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  return base === '.env' || base.startsWith('.env.');
}

/**
 * Splits a raw file set's candidates by what their links lead to: a candidate that is a link
 * (`linkTargets`: path → workspace-relative target) whose target `refuse` names is taken out and
 * put in the returned map (path → target), as is one to a control file of the root or a `.env`;
 * the rest are returned as they came. The runtimes judge
 * a file by its own name; this is the same judgement asked of where a link leads, for the root
 * files looked up by name (`SOUL.md -> config.yaml`) as for the files a walk lists.
 */
export function refusedLinkTargets(candidates: readonly string[], linkTargets: ReadonlyMap<string, string>, refuse: (target: string) => boolean): { kept: string[]; refused: Map<string, string> } {
  const kept: string[] = [];
  const refused = new Map<string, string>();
  for (const rel of candidates) {
    const target = linkTargets.get(rel);
    if (target !== undefined && isRefusedTarget(target, refuse)) refused.set(rel, target);
    else kept.push(rel);
  }
  return { kept, refused };
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

/** True when a link to `target` (workspace-relative) is not followed: a control file of the root, a `.env`, or what `refuse` names. */
export function isRefusedTarget(target: string, refuse: (target: string) => boolean): boolean {
  return CONTROL_FILES.includes(target) || isEnvFile(target) || refuse(target);
}

/**
 * True when `root/relPath` is a regular file that stays inside `root` (a symlink to
 * a file elsewhere, or to one of the workspace's control files, is treated as absent, as
 * `walkFiles` does).
 */
export async function isFileInside(root: string, relPath: string): Promise<boolean> {
  const found = await fileInside(root, relPath);
  return found !== null && (found.target === undefined || !CONTROL_FILES.includes(found.target));
}

/**
 * Where `root/relPath` leads: null when it is no regular file inside `root`, else `{}` for a plain
 * file and `{ target }` (workspace-relative) for a symlink to a file inside — a link to a control
 * file too, which `isFileInside` treats as absent. What a caller judges a root file looked up by
 * name by (`refusedLinkTargets`), as `walkFiles`' `linkTargets` for the files it lists. A symlink
 * out of `root` is null too, and added to `outside` (path → the real path it leads to) when given.
 */
export async function fileInside(root: string, relPath: string, outside?: Map<string, string>): Promise<{ target?: string } | null> {
  const rootReal = await realpath(root);
  const entry = await entryKind(rootReal, path.join(rootReal, ...relPath.split('/')));
  if (entry.kind === 'outside') outside?.set(relPath, entry.real);
  if (entry.kind !== 'file') return null;
  return entry.real === undefined ? {} : { target: relativeTo(rootReal, entry.real) };
}

/**
 * What a walk finds at a path: a symlink followed inside the root carries the real path it leads
 * to; one that leads out of the root (to a file or a directory) is `outside`, with that real path.
 */
type Entry = { kind: 'file'; real?: string } | { kind: 'dir'; real: string; plain?: boolean } | { kind: 'outside'; real: string } | { kind: 'skip' };

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
    info = await stat(abs);
    if (!isInside(rootReal, real)) return info.isFile() || info.isDirectory() ? { kind: 'outside', real } : { kind: 'skip' };
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
