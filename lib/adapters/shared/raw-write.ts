import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../types';
import { AdapterError } from './errors';
import { stageFiles, type StagedFiles } from './staged-write';
import { AGENT_ID_FILE, isRuntimeSidecar } from './sync-marker';
import { isInside, isRefusedTarget } from './walk';

/** Thrown before anything is written when a raw path is unsafe. */
export class UnsafePathError extends Error {
  readonly code = 'unsafe_path';

  constructor(readonly relPath: string, reason: string) {
    // A name of thousands of bytes is cut where it is said (the field keeps it whole).
    super(`unsafe workspace path ${JSON.stringify(relPath.length > 300 ? `${relPath.slice(0, 300)}…` : relPath)}: ${reason}`);
    this.name = 'UnsafePathError';
  }
}

/** Longest file name (one path segment) in UTF-8 bytes: NAME_MAX of ext4, APFS, NTFS (ingest refuses longer: ingest-checks.ts). */
const MAX_SEGMENT_BYTES = 255;

/** Longest path a system call takes, its NUL included (PATH_MAX): Linux 4096, macOS 1024. */
const MAX_PATH_BYTES = process.platform === 'darwin' ? 1024 : 4096;

/**
 * Room kept beside each file for its staging name (`.alf-restore-<pid>-<n>.tmp`, staged-write.ts),
 * which may be longer than the file's own name.
 */
const STAGING_NAME_ROOM = 40;

/**
 * Checks a workspace-relative path from an untrusted archive: forward slashes only,
 * no empty/`.`/`..` segments, not absolute, no drive prefix, no NUL, no name longer than a
 * file system holds (ENAMETOOLONG half-way through a restore).
 */
export function assertSafeRelPath(relPath: string): void {
  if (relPath.length === 0) throw new UnsafePathError(relPath, 'empty path');
  if (relPath.includes('\0')) throw new UnsafePathError(relPath, 'contains NUL');
  if (relPath.includes('\\')) throw new UnsafePathError(relPath, 'contains a backslash');
  if (relPath.startsWith('/')) throw new UnsafePathError(relPath, 'absolute path');
  if (/^[A-Za-z]:/.test(relPath)) throw new UnsafePathError(relPath, 'drive prefix');
  for (const segment of relPath.split('/')) {
    if (segment === '') throw new UnsafePathError(relPath, 'empty path segment');
    if (segment === '.' || segment === '..') throw new UnsafePathError(relPath, `"${segment}" segment`);
    const bytes = Buffer.byteLength(segment, 'utf8');
    if (bytes > MAX_SEGMENT_BYTES) throw new UnsafePathError(relPath, `a name of ${bytes} bytes, longer than the ${MAX_SEGMENT_BYTES} a file system holds`);
  }
}

/**
 * Refuses, before anything is written, a set of files (workspace-relative, checked by
 * `assertSafeRelPath`) that is not one tree: a path that is a file and a directory other files go
 * under (`memory/a.md` and `memory/a.md/b.md`; ZeroClaw's `data` beside `data/memory/brain.db`, Hermes'
 * `state.db/x` beside `state.db`, when the caller lists its database), or two names Unicode NFC makes
 * one (a normalizing file system writes them to one file). Ingest refuses such archives
 * (ingest-checks.ts `checkTree`), but not a raw path against the database a restore creates; met
 * while renaming into place, either left part of the restore written and failed as an internal error.
 */
export function assertOneTree(rels: readonly string[]): void {
  // Each node: the name as first met, whether it is a file, and (a directory) the file that made it one.
  const nodes = new Map<string, { rel: string; file: boolean; under: string }>();
  const add = (rel: string, file: boolean, under: string): void => {
    const key = rel.normalize('NFC');
    const seen = nodes.get(key);
    if (seen === undefined) {
      nodes.set(key, { rel, file, under });
      return;
    }
    if (seen.rel !== rel) throw new UnsafePathError(rel, `the same name under Unicode NFC as ${JSON.stringify(seen.rel)}, which a file system may take for one file`);
    if (seen.file || file) throw new UnsafePathError(rel, `a file, and the directory ${JSON.stringify(file ? seen.under : under)} goes under, at once`);
  };
  for (const rel of new Set(rels)) {
    add(rel, true, rel);
    for (let cut = rel.indexOf('/'); cut > 0; cut = rel.indexOf('/', cut + 1)) add(rel.slice(0, cut), false, rel);
  }
}

/**
 * The checks of a restore's paths that need nothing of the target but its path (`assertSafeRelPath`,
 * `assertOneTree`, `assertPathsFit`): what a live restore's plan runs before it reads the workspace
 * to decide, so even a restore that would only ask (prompt-update) refuses a hostile archive.
 */
export function assertRestorablePaths(target: string, rels: readonly string[]): void {
  for (const rel of rels) assertSafeRelPath(rel);
  assertOneTree(rels);
  assertPathsFit(target, rels);
}

/**
 * Refuses, before anything is written, a file whose path under `target` (with room for its staging
 * name) is longer than a system call takes: made or renamed half-way through a restore, it failed
 * with ENAMETOOLONG as an internal error. The target is not named (a download restores into a
 * temporary directory of the server).
 */
export function assertPathsFit(target: string, rels: readonly string[]): void {
  const base = Buffer.byteLength(path.resolve(target), 'utf8');
  for (const rel of rels) {
    const bytes = base + 1 + Buffer.byteLength(rel, 'utf8');
    if (bytes + STAGING_NAME_ROOM >= MAX_PATH_BYTES) {
      throw new UnsafePathError(rel, `${bytes} bytes with the directory it is restored into, more than a path can hold here (${MAX_PATH_BYTES} bytes, ${STAGING_NAME_ROOM} of them kept for the restore's staging name)`);
    }
  }
}

/** True when `assertSafeRelPath` would accept the path. */
export function isSafeRelPath(relPath: string): boolean {
  try {
    assertSafeRelPath(relPath);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes files under `target` byte-exact, creating directories: all are staged first
 * (`stageRawFiles`), then moved into place, so a full disk leaves the workspace as it was.
 * Returns the relative paths written, sorted.
 */
export async function writeRawFiles(args: RawFilesToWrite): Promise<string[]> {
  const staged = await stageRawFiles(args);
  await staged.commit();
  return staged.written;
}

export interface RawFilesToWrite {
  target: string;
  files: Map<string, Uint8Array>;
  skipSidecars?: boolean;
}

/**
 * Stages files under `target` (`staged-write.ts`: temporary names, in place only on `commit`).
 * Every path is checked first, so one unsafe name or something in the way means nothing is
 * written. Runtime sidecars (`.alf-*-schema.json`) are skipped when `skipSidecars` is set, as
 * restore does. A database restore stages its files before it writes the database and commits
 * them after, so a disk too full for them leaves the database as it was too.
 */
export async function stageRawFiles(args: RawFilesToWrite): Promise<StagedFiles> {
  const rels = [...args.files.keys()].filter((rel) => !(args.skipSidecars && isRuntimeSidecar(rel))).sort();
  for (const rel of rels) assertSafeRelPath(rel);
  assertWritable(args.target, rels);
  return stageFiles(args.target, new Map(rels.map((rel) => [rel, args.files.get(rel)!])));
}

/**
 * Refuses, before anything is written, a write that would meet something else in its way under
 * `target` (a live workspace): a directory where a file goes, a file where a directory must be, or
 * a symbolic link that leads out of the workspace or to nothing. A link that stays inside is
 * followed, as a sync follows it (`walkFiles`); one that leaves is a file the sync never read, and a
 * restore must not write through it to somewhere else on the machine. The user's to move: nothing
 * is replaced.
 */
export function assertWritable(target: string, rels: readonly string[]): void {
  assertOneTree(rels);
  assertPathsFit(target, rels);
  let root: string;
  try {
    root = realpathSync(target);
  } catch {
    return; // no target yet: nothing is in the way
  }
  const dirs = new Set<string>();
  for (const rel of rels) {
    const segments = rel.split('/');
    for (let i = 1; i < segments.length; i++) dirs.add(segments.slice(0, i).join('/'));
  }
  for (const dir of [...dirs].sort()) {
    const info = followedInside(target, root, dir);
    if (info && !info.isDirectory()) throw inTheWay(target, dir, 'a file', 'a directory');
  }
  for (const rel of rels) {
    const info = followedInside(target, root, rel);
    if (info && !info.isFile()) throw inTheWay(target, rel, info.isDirectory() ? 'a directory' : 'not a regular file', 'a file');
  }
  for (const rel of rels) assertPermitted(target, rel);
  // The restore's marker (restore-staging.ts) is written in the workspace's root, whatever it writes.
  if (rels.length > 0) assertAccess(target, target, constants.W_OK | constants.X_OK, 'the workspace directory, where the restore keeps its marker while it writes,');
}

/**
 * A file the restore overwrites must be writable (a read-only one is the user's word), and the
 * directory a file goes to too: files are staged there under a temporary name and renamed into
 * place (`staged-write.ts`). A read-only or immutable one would stop the restore part-way (root,
 * which no mode bit stops, is stopped by `chattr +i`).
 */
function assertPermitted(target: string, rel: string): void {
  const file = path.join(target, ...rel.split('/'));
  // `.alf-agent-id` is replaced by a rename (agent-id.ts): only its directory matters.
  if (rel !== AGENT_ID_FILE && existsSync(file)) assertAccess(target, file, constants.W_OK, rel);
  let at = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
  while (at !== '' && !existsSync(path.join(target, ...at.split('/')))) at = at.includes('/') ? at.slice(0, at.lastIndexOf('/')) : '';
  const dir = path.join(target, ...at.split('/'));
  assertAccess(target, dir, constants.W_OK | constants.X_OK, `${at === '' ? 'the workspace directory' : `the directory ${at}`}, where the restore writes ${rel},`);
}

function assertAccess(target: string, abs: string, mode: number, what: string): void {
  try {
    accessSync(abs, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
    throw new AdapterError('workspace_file_invalid', `cannot restore into ${target}: ${what} cannot be written (${code})`, {
      hint: `make ${abs} writable (chmod u+w, or chattr -i if it is immutable), then restore again (nothing was written)`,
    });
  }
}

/**
 * Refuses, before anything is written, a restore into a live workspace that would replace through a
 * symbolic link a file its runtime never carries under another name: the file a write to `rel` lands
 * on (the link `rel` itself or a directory link on its way followed) is judged as a sync judges a
 * link's target (`isRefusedTarget` with the runtime's `refuse`: a `.env`, a control file, Hermes'
 * `config.yaml`/`auth.json`/`state.db`, ZeroClaw's `config.toml`/`.secret_key`/`brain.db`). `SOUL.md ->
 * config.yaml` would otherwise have the archive's SOUL.md overwrite the configuration, `MEMORY.md ->
 * .env` the secrets — an archive made before links were judged, a reference client's, or a hostile
 * one. The link is the user's to replace (`workspace_file_invalid`, as a link out of the workspace
 * is): nothing is written, the link is not replaced either. A write that lands on a path of its own
 * name, or outside the workspace or on nothing (`assertWritable` refuses those), is not this check's.
 */
export function assertNotThroughRefusedLink(target: string, rels: readonly string[], refuse: (target: string) => boolean): void {
  let root: string;
  try {
    root = realpathSync(target);
  } catch {
    return; // no target yet: no link either
  }
  for (const rel of rels) {
    const lands = landsOn(target, root, rel);
    if (lands === null || lands === rel || !isRefusedTarget(lands, refuse)) continue;
    throw refusedLink(target, rel, lands, firstLink(target, rel));
  }
}

/** Where the runtime's database path leads when it must not be opened as its database (`databaseLink`). */
export type DatabaseLink =
  | { kind: 'refused'; lands: string; link: string }
  | { kind: 'outside'; real: string; link: string }
  | { kind: 'dangling'; link: string };

/**
 * What stands in the way of opening the runtime's database `rel` (Hermes' `state.db`, ZeroClaw's
 * `brain.db` where it is found) as SQLite, null when nothing does: a symbolic link on its way (the
 * path itself or a directory of it) that leads to a file its runtime never carries under another name
 * (`isRefusedTarget` with `refuse`: `state.db -> .env`, `memory/brain.db -> ../config.toml`), out of
 * the workspace (the database there or not: `data -> /mnt/data`), or to nothing (`data -> /gone`
 * too). A link to another file inside that is none of those — another SQLite database of the
 * workspace, even one named as the runtime's database (`memory/brain.db -> ../brain.db`) — is the
 * user's and is opened through, as a link to a plain file is written through.
 */
export function databaseLink(target: string, rel: string, refuse: (target: string) => boolean): DatabaseLink | null {
  let root: string;
  try {
    root = realpathSync(target);
  } catch {
    return null; // no target yet: no link either
  }
  const dangling = linkToNothingOnTheWay(target, rel);
  if (dangling !== null) return { kind: 'dangling', link: dangling };
  const lands = landsOn(target, root, rel);
  if (lands === null) return { kind: 'outside', real: realpathOfDeepest(target, rel), link: firstLink(target, rel) };
  const own = rel.slice(rel.lastIndexOf('/') + 1);
  const refused = (to: string) => to.slice(to.lastIndexOf('/') + 1) !== own && refuse(to);
  if (lands === rel || !isRefusedTarget(lands, refused)) return null;
  return { kind: 'refused', lands, link: firstLink(target, rel) };
}

/**
 * The first symbolic link to nothing on the way to `rel` (a directory of it, `data -> /gone`, or `rel`
 * itself), from the root down; null when there is none before the path stops existing.
 */
function linkToNothingOnTheWay(target: string, rel: string): string | null {
  const segments = rel.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const at = path.join(target, ...segments.slice(0, i));
    let entry: Stats | undefined;
    try {
      entry = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      return null; // a file on the way (ENOTDIR): nothing under it
    }
    if (entry === undefined) return null;
    if (entry.isSymbolicLink() && !existsSync(at)) return segments.slice(0, i).join('/');
  }
  return null;
}

/**
 * What the runtime's database `rel` is when it is there but no file (a link followed): 'a directory'
 * or 'not a regular file'; null when it is a file or not there. A sync does not take it for no
 * database, nor a restore write over it.
 */
export function databaseNotAFile(target: string, rel: string): 'a directory' | 'not a regular file' | null {
  let info: Stats | undefined;
  try {
    info = statSync(path.join(target, ...rel.split('/')), { throwIfNoEntry: false });
  } catch {
    return null; // a file on the way, or a link loop: what `databaseLink` and the open say
  }
  if (info === undefined || info.isFile()) return null;
  return info.isDirectory() ? 'a directory' : 'not a regular file';
}

/**
 * What stands on the way to the runtime's database `rel` where a directory of it goes (ZeroClaw's
 * `data` of `data/memory/brain.db`), null when each is a directory (a link followed) or the path stops
 * existing first: the first such part (`at`) and what it is (`found`: 'a file', a link to one too, or
 * 'neither a file nor a directory', a FIFO or a socket). A file `data` is a broken workspace, not one
 * without `data/`: a sync does not pass the database by for an older one, nor a restore write over it.
 */
export function databaseWayNotADirectory(target: string, rel: string): { at: string; found: 'a file' | 'neither a file nor a directory' } | null {
  const segments = rel.split('/');
  for (let i = 1; i < segments.length; i++) {
    let info: Stats | undefined;
    try {
      info = statSync(path.join(target, ...segments.slice(0, i)), { throwIfNoEntry: false });
    } catch {
      return null; // a link loop: what `databaseLink` says
    }
    if (info === undefined) return null;
    if (!info.isDirectory()) return { at: segments.slice(0, i).join('/'), found: info.isFile() ? 'a file' : 'neither a file nor a directory' };
  }
  return null;
}

/**
 * What keeps the runtime's database `rel` from being read though something may be there, null when
 * nothing does (or nothing is there): a directory on its way that cannot be searched (`at`, '' for the
 * workspace itself: `chmod 000 data`), or the file itself unreadable (`at` = `rel`), with the error code
 * (EACCES, EPERM). Taken for no database, a sync would delete the records, or take an older database of
 * the workspace for it (`findBrainDb` finds the candidate it stands on); read, it failed as an internal error.
 */
export function databaseUnreadable(target: string, rel: string): { at: string; code: string } | null {
  const segments = rel.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const abs = path.join(target, ...segments.slice(0, i));
    let info: Stats | undefined;
    try {
      info = statSync(abs, { throwIfNoEntry: false });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
      if (code === 'ELOOP' || code === 'ENOTDIR') return null; // what `databaseLink` and `databaseWayNotADirectory` say
      return { at: segments.slice(0, i - 1).join('/'), code };
    }
    if (info === undefined) return null;
    if (i < segments.length) continue;
    if (!info.isFile()) return null; // what `databaseNotAFile` says
    try {
      accessSync(abs, constants.R_OK);
    } catch (error) {
      return { at: rel, code: (error as NodeJS.ErrnoException).code ?? 'EACCES' };
    }
  }
  return null;
}

/**
 * Refuses, before anything is read, written or sent, a sync of a workspace whose database `rel` is
 * there but cannot be read (`databaseUnreadable`): `workspace_file_invalid`, naming the file or the
 * directory on its way, with the way out — not an internal error, not "no database".
 */
export function assertDatabaseAccessibleForSync(workspace: string, rel: string): void {
  const found = databaseUnreadable(workspace, rel);
  if (found === null) return;
  const abs = path.join(workspace, ...found.at.split('/'));
  if (found.at === rel) {
    throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} cannot be read (${found.code}); nothing was read or sent`, {
      hint: `make ${abs} readable (chmod u+r), then sync again`,
    });
  }
  throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} cannot be reached: ${found.at === '' ? 'the workspace directory' : `the directory ${found.at}`} cannot be searched (${found.code}); neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`, {
    hint: `make ${abs} readable (chmod u+rx), then sync again`,
  });
}

/**
 * Refuses, before the database is read or anything written, a restore into a live workspace whose
 * database `rel` is there but no file (`databaseNotAFile`: ZeroClaw's `brain.db` a directory), or
 * cannot be read (`databaseUnreadable`: `chmod 000 data`), or
 * has something other than a directory on its way (`databaseWayNotADirectory`: a file `data`), as a
 * write of a file onto a directory, or under a file, is refused (`assertWritable`): the user's to
 * move, nothing written. `readsOnly`: the restore writes no database there (a Hermes snapshot without
 * sessions) but reads it to tell whether memory is there — refused all the same, as a link to nothing
 * there is (`assertDatabaseNotThroughLink`): taken for no database, the home's sessions would be
 * ignored by the decision, and the next sync refuses it anyway.
 */
export function assertDatabaseFileForRestore(target: string, rel: string, readsOnly = false): void {
  const way = databaseWayNotADirectory(target, rel);
  if (way !== null) throw inTheWay(target, way.at, way.found, 'a directory');
  const unreadable = databaseUnreadable(target, rel);
  if (unreadable !== null) {
    const abs = path.join(target, ...unreadable.at.split('/'));
    throw new AdapterError('workspace_file_invalid', unreadable.at === rel
      ? `cannot restore into ${target}: ${rel}, the database the restore opens, cannot be read (${unreadable.code})`
      : `cannot restore into ${target}: ${unreadable.at === '' ? 'the workspace directory' : `the directory ${unreadable.at}`}, on the way to the database ${rel}, cannot be searched (${unreadable.code})`, {
      hint: `make ${abs} readable (chmod u+r${unreadable.at === rel ? 'w' : 'wx'}), then restore again (nothing was written)`,
    });
  }
  const found = databaseNotAFile(target, rel);
  if (found === null) return;
  if (!readsOnly) throw inTheWay(target, rel, found, 'a file');
  throw new AdapterError('workspace_file_invalid', `cannot restore into ${target}: ${rel} is ${found} there, where the restore reads the runtime's database (to tell whether memory is there)`, {
    hint: `move ${path.join(target, ...rel.split('/'))} out of the way, then restore again (nothing was written)`,
  });
}

/**
 * Refuses, before the database is read or anything written, a restore into a live workspace whose
 * database path leads through a link where `databaseLink` says it must not be opened — as
 * `assertNotThroughRefusedLink` refuses a file: `workspace_file_invalid`, nothing written, the file
 * the link leads to as it was.
 */
export function assertDatabaseNotThroughLink(target: string, rel: string, refuse: (target: string) => boolean): void {
  const found = databaseLink(target, rel, refuse);
  if (found === null) return;
  if (found.kind === 'refused') throw refusedLink(target, rel, found.lands, found.link);
  throw linkInTheWay(target, found.link, found.kind === 'dangling'
    ? linkToNothing(path.join(target, ...found.link.split('/')))
    : `a symbolic link to ${found.real}, outside the workspace, and a restore writes only inside it`);
}

/**
 * Refuses, before the database is read or anything written or sent, a sync of a workspace whose
 * database `rel` (Hermes' `state.db`, ZeroClaw's `brain.db` where it is found) leads through a link
 * where `databaseLink` says it must not be opened — the rule a restore into it follows
 * (`assertDatabaseNotThroughLink`), so the two agree:
 * - to a file a sync never reads or carries (`state.db -> .env`): opened as SQLite, the secret would be read;
 * - out of the workspace (`state.db -> /elsewhere/state.db`, a directory link `data -> /elsewhere/data`):
 *   a sync follows links only inside it. Read as absent (Hermes did), its delta deleted every
 *   session at the head; read (ZeroClaw did), the sync carried what a restore refuses to write;
 * - to nothing, itself or a directory on its way (ZeroClaw's `data -> /gone`): not "no database" — the
 *   sessions or memories the last sync had would be deleted — nor, for ZeroClaw, an older database of
 *   the workspace taken for it (`zeroclaw/locate.ts` `findBrainDb` finds the candidate such a link stands on).
 * `workspace_file_invalid`, naming the link and where it leads, with the way out.
 */
export function assertDatabaseReadableForSync(workspace: string, rel: string, refuse: (target: string) => boolean): void {
  const found = databaseLink(workspace, rel, refuse);
  if (found === null) return;
  const abs = path.join(workspace, ...found.link.split('/'));
  if (found.kind === 'refused') {
    throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} leads to ${found.lands} through the symbolic link ${found.link}, a file a sync never reads or carries (a secret or a control file); nothing was read or sent`, {
      hint: `replace the link ${abs} with the database itself (or a link to it), or remove it, then sync again`,
    });
  }
  if (found.kind === 'outside') {
    throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} leads to ${found.real}, outside the workspace, through the symbolic link ${found.link}, and a sync follows links only inside it; nothing was read or sent`, {
      hint: `move the database into the workspace (replace the link ${abs} with the file itself, or with a link to it inside the workspace), then sync again`,
    });
  }
  if (found.link !== rel) {
    throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} is behind the symbolic link ${found.link} to ${linkText(abs)}, ${whichLeadsNowhere(abs)}; neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`, {
      hint: isLinkLoop(abs) ? `replace the link ${abs} with the directory itself, then sync again` : `put back the directory the link ${abs} leads to, or replace the link with it, then sync again`,
    });
  }
  throw new AdapterError('workspace_file_invalid', `cannot sync ${workspace}: its database ${rel} is a symbolic link to ${linkText(abs)}, ${whichLeadsNowhere(abs)}; it is not taken for no database (its records would be deleted); nothing was read or sent`, {
    hint: isLinkLoop(abs) ? `replace the link ${abs} with the database file, then sync again` : `put the database back where the link leads, or replace the link ${abs} with the database file, then sync again`,
  });
}

/**
 * Of a symbolic link that leads to nothing: 'which does not exist', or, for a loop of links (`data -> data`,
 * `a -> b -> a`: ELOOP), that it leads back to itself — there is nothing missing to put back.
 */
function whichLeadsNowhere(abs: string): string {
  return isLinkLoop(abs) ? 'which leads back to itself (a loop of symbolic links)' : 'which does not exist';
}

/** What a restore says of a symbolic link on its way that leads to nothing (`whichLeadsNowhere`). */
function linkToNothing(abs: string): string {
  return isLinkLoop(abs) ? 'a symbolic link that leads back to itself (a loop of symbolic links)' : 'a symbolic link to a path that does not exist';
}

function isLinkLoop(abs: string): boolean {
  try {
    realpathSync(abs);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP';
  }
}

/** What a symbolic link says it leads to (`readlink`), or the path itself when it cannot be read. */
function linkText(abs: string): string {
  try {
    return readlinkSync(abs);
  } catch {
    return abs;
  }
}

/** The real path of the deepest part of `rel` that exists (a link followed). */
function realpathOfDeepest(target: string, rel: string): string {
  const segments = rel.split('/');
  for (let i = segments.length; i > 0; i--) {
    try {
      return path.join(realpathSync(path.join(target, ...segments.slice(0, i))), ...segments.slice(i));
    } catch {
      continue;
    }
  }
  return path.join(target, rel);
}

function refusedLink(target: string, rel: string, lands: string, link: string): AdapterError {
  return new AdapterError('workspace_file_invalid', `cannot restore into ${target}: ${rel} leads to ${lands} through the symbolic link ${link}, and a restore never writes a file a sync never carries under another name (a secret, a database or a control file)`, {
    hint: `replace the link ${path.join(target, ...link.split('/'))} with a file or directory of its own, or remove it, then restore again; or restore into a new directory with --out (nothing was written)`,
  });
}

/**
 * The workspace-relative path a write to `rel` lands on, every link on its way followed (the deepest
 * part of it that exists resolved, the rest appended); null when that is outside `root`.
 */
function landsOn(target: string, root: string, rel: string): string | null {
  const segments = rel.split('/');
  for (let i = segments.length; i >= 0; i--) {
    let real: string;
    try {
      real = i === 0 ? root : realpathSync(path.join(target, ...segments.slice(0, i)));
    } catch {
      continue; // not there yet, or a link to nothing
    }
    const lands = path.join(real, ...segments.slice(i));
    return isInside(root, lands) ? path.relative(root, lands).split(path.sep).join('/') : null;
  }
  return null;
}

/** The first symbolic link on the way to `rel` (a directory of it, or `rel` itself), from the root down. */
function firstLink(target: string, rel: string): string {
  const segments = rel.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const at = segments.slice(0, i).join('/');
    if (lstatSync(path.join(target, ...segments.slice(0, i)), { throwIfNoEntry: false })?.isSymbolicLink()) return at;
  }
  return rel;
}

/** What stands at `rel` (a symlink followed), or undefined; throws when it is a link out of `root` or to nothing. */
function followedInside(target: string, root: string, rel: string): Stats | undefined {
  const abs = path.join(target, ...rel.split('/'));
  const entry = lstatSync(abs, { throwIfNoEntry: false });
  if (!entry?.isSymbolicLink()) return entry;
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw linkInTheWay(target, rel, linkToNothing(abs));
  }
  if (!isInside(root, real)) throw linkInTheWay(target, rel, `a symbolic link to ${real}, outside the workspace, and a restore writes only inside it`);
  return statSync(abs);
}

function inTheWay(target: string, rel: string, found: string, needed: string): AdapterError {
  return new AdapterError('workspace_file_invalid', `cannot restore into ${target}: ${rel} is ${found} there, where the restore writes ${needed}`, {
    hint: `move ${path.join(target, ...rel.split('/'))} out of the way, then restore again (nothing was written)`,
  });
}

function linkInTheWay(target: string, rel: string, found: string): AdapterError {
  return new AdapterError('workspace_file_invalid', `cannot restore into ${target}: ${rel} is ${found}`, {
    hint: `replace the link ${path.join(target, ...rel.split('/'))} with what it stands for, or restore into a new directory with --out (nothing was written)`,
  });
}

/** The files minus runtime sidecars, which restore never writes. */
export function withoutSidecars(files: Map<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...files].filter(([rel]) => !isRuntimeSidecar(rel)));
}

/** `raw/<runtime>/` prefix of the raw channel inside an archive. */
export function rawPrefix(runtime: Runtime): string {
  return `raw/${runtime}/`;
}

/**
 * Full archive path of a workspace file: `raw/<runtime>/<rel>`. A name an archive cannot carry
 * (CONTRACT §9: a backslash, a drive prefix; a walk gives no other unsafe one) is the user's to
 * rename or leave out, said here — the archive writer would refuse it as a malformed archive.
 */
export function rawArchivePath(runtime: Runtime, relPath: string): string {
  if (relPath.includes('\\') || /^[A-Za-z]:/.test(relPath)) throw unarchivableName(relPath);
  return `${rawPrefix(runtime)}${relPath}`;
}

function unarchivableName(relPath: string): AdapterError {
  const why = relPath.includes('\\') ? 'its name contains a backslash' : 'its name starts like a drive (C:)';
  return new AdapterError('workspace_file_invalid', `the workspace file ${JSON.stringify(relPath)} cannot be synced: ${why}, which an ALF archive cannot carry`, {
    hint: 'rename the file, or leave it out with a line in .alfignore, then sync again (nothing was uploaded)',
  });
}

/**
 * Workspace-relative path of a full archive path, or null when the entry belongs to
 * another runtime or is a directory entry (trailing `/`).
 */
export function rawRelPath(fullArchivePath: string, runtime: Runtime): string | null {
  const prefix = rawPrefix(runtime);
  if (!fullArchivePath.startsWith(prefix) || fullArchivePath.endsWith('/')) return null;
  const rel = fullArchivePath.slice(prefix.length);
  return rel.length > 0 ? rel : null;
}

/** The runtime's raw files of an archive map, re-keyed by workspace-relative path. */
export function rawFilesFor(raw: Map<string, Uint8Array>, runtime: Runtime): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [full, bytes] of raw) {
    const rel = rawRelPath(full, runtime);
    if (rel !== null) out.set(rel, bytes);
  }
  return out;
}

/** Workspace-relative raw map → archive map keyed by `raw/<runtime>/<rel>`. */
export function toArchiveRaw(files: Map<string, Uint8Array>, runtime: Runtime): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const rel of [...files.keys()].sort()) out.set(rawArchivePath(runtime, rel), files.get(rel)!);
  return out;
}
