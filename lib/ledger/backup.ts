/**
 * `lineage backup` (lib/cli/commands/backup.ts): a consistent copy of a live data directory.
 *
 * 1. The database: SQLite's online backup (better-sqlite3 `backup`, a few hundred pages a step, the
 *    event loop turning in between) from a connection that holds one read transaction for the whole
 *    copy. In WAL mode a reader blocks no writer, and the held transaction pins the snapshot: what
 *    the copy holds is exactly what was committed when that transaction began (no restart of the
 *    copy when a server or a sync commits meanwhile; the WAL only grows until it ends, and is cut
 *    back to db/writer-pragmas.ts' limit by the first commit after a checkpoint caught up).
 * 2. The blobs: every key that snapshot's `ledger_entries` names, copied (`COPYFILE_FICLONE`: a
 *    reflink where the filesystem has them, else a plain copy — never a hard link, which would share
 *    any later damage) in its form at rest, whole or packed, in agent and sequence order so a packed
 *    one's bases are there before it; each read back from the copy and checked against the entry's
 *    size and sha256. A packed copy that does not read back (a base the backup does not hold) is
 *    written whole from the source's bytes, checked the same way. A blob the source lacks or holds
 *    damaged fails the backup, naming it. Blobs written after the snapshot are not copied; nor
 *    are blob keys `deleted_agent_blobs` names (a deleted agent's removed blobs: not data to keep).
 * 3. The files a server reads from the data directory besides those (`server-secret`), with their modes.
 * 4. Everything is written into a temporary directory beside the destination, checked as `lineage
 *    doctor` checks a data directory (the copy opened read-only, every entry's blob read back and
 *    compared with its sha256, `PRAGMA quick_check`), fsynced, and only then renamed to the
 *    destination: a backup killed at any point leaves no directory at the destination.
 * Not copied: `uploads/` (resumable uploads not acknowledged yet), lock, marker and request files of
 * running processes, `demo/` (the demo's simulated workspaces).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { DATABASE_FILE, openDatabase } from '@/db/client';
import * as schema from '@/db/schema';
import { sha256Hex } from '@/lib/core/uuid';
import { BlobFiles, PACKED_SUFFIX, wholePath } from './blob-files';
import { FsBlobStore } from './blob-store';
import { findDamagedBlobs } from './consistency';
import { isLedgerError } from './errors';
import type { Ledger } from './ledger';
import { processAlive } from '@/lib/core/process-alive';

/** The files of a data directory, besides the database and the blobs, that a server reads. */
export const SERVER_FILES = ['server-secret'] as const;

/** What `backupDataDir` made. */
export interface BackupResult {
  out: string;
  /** When the snapshot's read transaction began (this process's clock). */
  snapshot_at: string;
  agents: number;
  entries: number;
  blobs: number;
  /** Bytes of the backup: the database, the blob files and the server files. */
  bytes: number;
  /** Each agent's latest sequence in the snapshot. */
  sequence_by_agent: Record<string, number | null>;
  /** Server files copied (those the source had). */
  files: string[];
  /** Blobs stored packed in the source whose packed copy did not read back alone: stored whole in the backup. */
  written_whole: number;
}

/** Why a destination cannot take a backup, or null. Nothing is written. */
export function destinationProblem(dataDir: string, out: string): string | null {
  const data = fs.realpathSync(dataDir);
  let existing: fs.Stats | null = null;
  try {
    existing = fs.statSync(out);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `${out} cannot be looked at: ${(error as Error).message}`;
  }
  const parent = path.dirname(path.resolve(out));
  let real: string;
  try {
    real = existing ? fs.realpathSync(out) : path.join(fs.realpathSync(parent), path.basename(path.resolve(out)));
  } catch {
    return `the directory ${parent} that would hold ${out} does not exist`;
  }
  const rel = path.relative(data, real);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return `${out} is inside the data directory ${dataDir}: a backup goes elsewhere (another disk, ideally)`;
  if (existing && !existing.isDirectory()) return `${out} is a file, not a directory`;
  if (existing && fs.readdirSync(out).length > 0) return `${out} is not empty: a backup is written only into a new or empty directory`;
  if (!existing && !fs.statSync(parent).isDirectory()) return `${parent} is not a directory`;
  // Its leftovers are looked for and the rename made durable through a listing of it (and root lists any directory).
  try {
    fs.accessSync(parent, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    return `the directory ${parent} that would hold ${out} cannot be listed by this user (${(error as NodeJS.ErrnoException).code})`;
  }
  return null;
}

/** Where the race and kill tests stop a backup (`LINEAGE_BACKUP_STOP_AT=<name>`: SIGSTOP). */
function backupStopPoint(name: 'snapshot' | 'blobs'): void {
  if (process.env.LINEAGE_BACKUP_STOP_AT === name) process.kill(process.pid, 'SIGSTOP');
}

interface NamedBlob {
  agent_id: string;
  seq: number;
  kind: string;
  blob_key: string;
  sha256: string;
  size_bytes: number;
}

/** A backup that could not be made: nothing is left at the destination. `hint`: what to do. */
export class BackupError extends Error {
  readonly code = 'backup_failed';
  constructor(message: string, readonly hint = 'nothing was written at the destination; fix the cause and run lineage backup again') {
    super(message);
    this.name = 'BackupError';
  }
}

const DOCTOR_HINT = 'run `lineage doctor --data DIR` on the data directory: it lists every missing or damaged blob (a damaged one comes back only from an earlier backup)';
const backupFailed = (what: string, hint?: string) => new BackupError(what, hint);

/**
 * Temporary directories of backups to `out` whose process is gone (a killed backup's). One this user
 * cannot remove (a read-only disk, a directory it may not write) is left as it is: the backup's own
 * temporary directory beside it then fails in words, or is made there anyway.
 */
function removeStaleTemporaries(out: string): void {
  const parent = path.dirname(out);
  const prefix = `.${path.basename(out)}.backup-`;
  for (const name of fs.readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    } catch {
      // not this user's to remove, or not now: left for a backup that may
    }
  }
}

function fsyncPath(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The file that holds `key` in `root` now, whole or packed (a packer or a delete may switch it meanwhile), or null. */
function fileAtRest(root: string, key: string): string | null {
  const whole = wholePath(root, key);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (fs.existsSync(whole)) return whole;
    if (fs.existsSync(whole + PACKED_SUFFIX)) return whole + PACKED_SUFFIX;
  }
  return null;
}

function matches(bytes: Uint8Array, entry: NamedBlob): boolean {
  return bytes.byteLength === entry.size_bytes && sha256Hex(bytes) === entry.sha256;
}

function describe(entry: NamedBlob): string {
  return `the ${entry.kind} of agent ${entry.agent_id} at sequence ${entry.seq} (blob ${entry.blob_key})`;
}

/**
 * Copies one named blob into `outRoot`, checked. Returns whether it was written whole from the
 * source's bytes because its packed copy did not read back by itself.
 */
function copyBlob(sourceRoot: string, source: BlobFiles, outRoot: string, copy: BlobFiles, entry: NamedBlob, stillNamed: (key: string) => boolean): boolean {
  // Gone since the snapshot because its agent was deleted since (the deletion removes its blobs): not damage.
  const deletedSince = () => backupFailed(
    `agent ${entry.agent_id} was deleted after the backup's snapshot was taken, and ${describe(entry)} with it; nothing was written`,
    'run lineage backup again: the next snapshot no longer holds that agent');
  for (let attempt = 0; ; attempt++) {
    const from = fileAtRest(sourceRoot, entry.blob_key);
    if (from === null) {
      if (!stillNamed(entry.blob_key)) throw deletedSince();
      throw backupFailed(`${describe(entry)} is missing from ${sourceRoot}; nothing was written`, DOCTOR_HINT);
    }
    const to = path.join(outRoot, path.basename(from));
    try {
      fs.copyFileSync(from, to, fs.constants.COPYFILE_FICLONE);
    } catch (error) {
      // Packed or made whole between the look and the copy: look again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 3) continue;
      throw error;
    }
    let read: Uint8Array | null = null;
    try {
      read = copy.read(entry.blob_key);
    } catch (error) {
      if (!isLedgerError(error, 'blob_missing') && !isLedgerError(error, 'blob_corrupt')) throw error;
    }
    if (read !== null && matches(read, entry)) return false;
    // The copy does not read back as the entry records: its source, read and checked, decides.
    let bytes: Uint8Array;
    try {
      bytes = source.read(entry.blob_key);
    } catch (error) {
      if (isLedgerError(error, 'blob_missing') && attempt < 3) continue;
      if (isLedgerError(error, 'blob_missing') && !stillNamed(entry.blob_key)) throw deletedSince();
      if (isLedgerError(error, 'blob_missing') || isLedgerError(error, 'blob_corrupt')) {
        throw backupFailed(`${describe(entry)} cannot be read from ${sourceRoot}: ${(error as Error).message}; nothing was written`, DOCTOR_HINT);
      }
      throw error;
    }
    if (!matches(bytes, entry)) {
      throw backupFailed(`${describe(entry)} in ${sourceRoot} is damaged: it does not match the size and sha256 its ledger entry records; nothing was written`, DOCTOR_HINT);
    }
    fs.rmSync(to, { force: true });
    copy.cache.drop(entry.blob_key);
    fs.writeFileSync(wholePath(outRoot, entry.blob_key), bytes);
    return true;
  }
}

/** The backup, opened read-only as a data directory, checked as `lineage doctor` checks one. */
async function verifyCopy(dir: string, expected: { entries: number; agents: number }): Promise<void> {
  const file = path.join(dir, DATABASE_FILE);
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = sqlite.pragma('quick_check') as { quick_check: string }[];
    if (check.length !== 1 || check[0]!.quick_check !== 'ok') {
      throw backupFailed(`the copied database does not pass SQLite's quick_check: ${check.map((c) => c.quick_check).join('; ')}`);
    }
    const entries = (sqlite.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n;
    const agents = (sqlite.prepare('SELECT count(*) AS n FROM agents').get() as { n: number }).n;
    if (entries !== expected.entries || agents !== expected.agents) {
      throw backupFailed(`the copied database holds ${agents} agent(s) and ${entries} entries, the snapshot ${expected.agents} and ${expected.entries}`);
    }
    const ledger: Ledger = { db: { sqlite, db: drizzle({ client: sqlite, schema }), dataDir: dir }, blobs: new FsBlobStore(path.join(dir, 'blobs'), { pack: false }) };
    const damaged = await findDamagedBlobs(ledger);
    if (damaged.length > 0) throw backupFailed(`the copy does not pass lineage doctor's check: ${damaged.map((d) => d.problem).join('; ')}`);
  } finally {
    sqlite.close();
  }
  // A read-only handle leaves an empty -wal and its -shm behind: nothing in them.
  if (fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size === 0) {
    fs.rmSync(`${file}-wal`, { force: true });
    fs.rmSync(`${file}-shm`, { force: true });
  }
}

/**
 * Backs `dataDir` up into `out` (which must not exist, or be an empty directory: `destinationProblem`
 * says why not, checked by the caller). `onStep`: progress lines.
 */
export async function backupDataDir(p: { dataDir: string; out: string; onStep?: (line: string) => void }): Promise<BackupResult> {
  const dataDir = path.resolve(p.dataDir);
  const out = path.resolve(p.out);
  const step = p.onStep ?? (() => {});
  removeStaleTemporaries(out);
  const temp = path.join(path.dirname(out), `.${path.basename(out)}.backup-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    fs.mkdirSync(temp, { mode: 0o700 });
    const result = await backupInto(dataDir, temp, step);
    const sourceMode = fs.statSync(dataDir).mode & 0o7777;
    fs.chmodSync(temp, sourceMode);
    fsyncPath(temp);
    // An empty directory at `out` is replaced by the rename; anything else there now fails it (ENOTEMPTY).
    try {
      fs.renameSync(temp, out);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
      throw backupFailed(`${out} was filled while this backup ran (another backup to it, or something else written there): this backup was not put in its place; nothing of it was left`,
        'pass --out a new directory, then run lineage backup again');
    }
    fsyncPath(path.dirname(out));
    return { out, ...result };
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw inWords(error, out, temp);
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: 'its disk is full', EDQUOT: 'its disk quota is used up', SQLITE_FULL: 'its disk is full',
  EACCES: 'permission denied', EPERM: 'permission denied', EROFS: 'it is on a read-only filesystem',
};

/** A filesystem failure as what it was about: writing the backup, or reading the data directory. */
function inWords(error: unknown, out: string, temp: string): unknown {
  if (error instanceof BackupError) return error;
  const { code, path: at } = error as { code?: unknown; path?: unknown };
  if (typeof code !== 'string') return error;
  const why = `${REASONS[code] ?? (error as Error).message} (${code})`;
  const writing = code === 'SQLITE_FULL' || (typeof at === 'string' && (at === temp || at.startsWith(temp + path.sep)));
  if (writing) {
    return backupFailed(`cannot write the backup at ${out}: ${why}; nothing was left there`,
      code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT'
        ? 'free some space on that disk (or pass --out a directory on another one), then run lineage backup again'
        : 'pass --out a directory this user can write, then run lineage backup again');
  }
  if (typeof at === 'string' && code.startsWith('E')) {
    return backupFailed(`cannot read ${at} from the data directory: ${why}; nothing was written`, 'run lineage backup as a user who can read the whole data directory');
  }
  return error;
}

/**
 * The source database as it is: not migrated (a backup taken before an upgrade is of the data as that
 * version left it; the copy is migrated when it is next opened as a data directory). A directory that
 * cannot be written is opened as every command opens one (db/client.ts: read-only, never migrated).
 */
function openSource(dataDir: string): { sqlite: Database.Database; close: () => void } {
  try {
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch {
    return { sqlite: openDatabase(dataDir).sqlite, close: () => {} };
  }
  const sqlite = new Database(path.join(dataDir, DATABASE_FILE), { fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  return { sqlite, close: () => sqlite.close() };
}

async function backupInto(dataDir: string, temp: string, step: (line: string) => void): Promise<Omit<BackupResult, 'out'>> {
  const source = openSource(dataDir);
  try {
    return await backupFrom(source.sqlite, dataDir, temp, step);
  } finally {
    source.close();
  }
}

async function backupFrom(sqlite: Database.Database, dataDir: string, temp: string, step: (line: string) => void): Promise<Omit<BackupResult, 'out'>> {
  const tempDb = path.join(temp, DATABASE_FILE);
  let named: NamedBlob[];
  let sequences: { id: string; latest_sequence: number | null }[];
  let snapshotAt: Date;
  // One read transaction for the list of blobs and the copy: both are the same snapshot.
  sqlite.exec('BEGIN');
  try {
    snapshotAt = new Date();
    named = sqlite.prepare('SELECT agent_id, seq, kind, blob_key, sha256, size_bytes FROM ledger_entries ORDER BY agent_id, seq, kind').all() as NamedBlob[];
    sequences = sqlite.prepare('SELECT id, latest_sequence FROM agents ORDER BY id').all() as { id: string; latest_sequence: number | null }[];
    backupStopPoint('snapshot');
    step(`copying the database (${named.length} ledger entries, ${sequences.length} agents at ${snapshotAt.toISOString()})`);
    await sqlite.backup(tempDb);
  } finally {
    sqlite.exec('COMMIT');
  }
  fs.chmodSync(tempDb, fs.statSync(path.join(dataDir, DATABASE_FILE)).mode & 0o7777);

  const sourceRoot = path.join(dataDir, 'blobs');
  const outRoot = path.join(temp, 'blobs');
  fs.mkdirSync(outRoot);
  const sourceFiles = new BlobFiles(sourceRoot);
  const copy = new BlobFiles(outRoot);
  step(`copying ${named.length} blobs`);
  const namedNow = sqlite.prepare('SELECT 1 FROM ledger_entries WHERE blob_key = ?').pluck();
  const stillNamed = (key: string) => namedNow.get(key) !== undefined;
  let whole = 0;
  for (const [i, entry] of named.entries()) {
    if (copyBlob(sourceRoot, sourceFiles, outRoot, copy, entry, stillNamed)) whole++;
    if (i === 0) backupStopPoint('blobs');
    // Give the event loop a turn now and then (signals, a long copy).
    if (i % 256 === 255) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  const files: string[] = [];
  for (const name of SERVER_FILES) {
    const from = path.join(dataDir, name);
    if (!fs.existsSync(from)) continue;
    const to = path.join(temp, name);
    fs.copyFileSync(from, to);
    fs.chmodSync(to, fs.statSync(from).mode & 0o7777);
    files.push(name);
  }

  step('checking the copy as lineage doctor does');
  await verifyCopy(temp, { entries: named.length, agents: sequences.length });

  let bytes = 0;
  for (const name of fs.readdirSync(outRoot)) {
    const file = path.join(outRoot, name);
    bytes += fs.statSync(file).size;
    fsyncPath(file);
  }
  fsyncPath(outRoot);
  for (const name of [DATABASE_FILE, ...files]) {
    const file = path.join(temp, name);
    bytes += fs.statSync(file).size;
    fsyncPath(file);
  }
  return {
    snapshot_at: snapshotAt.toISOString(),
    agents: sequences.length,
    entries: named.length,
    blobs: new Set(named.map((e) => e.blob_key)).size,
    bytes,
    sequence_by_agent: Object.fromEntries(sequences.map((a) => [a.id, a.latest_sequence])),
    files,
    written_whole: whole,
  };
}
