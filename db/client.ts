/**
 * Opens the data directory's SQLite database (`<data>/lineage.db`) with drizzle and migrates it.
 * Loaded by the CLI as well as the server: no `next` or `server-only` imports here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema';
import { packageRoot } from '../lib/package-root';
import { fillWordIndex, wordIndexPending } from '../lib/history/search/word-index';
import { knownMigrations, newestKnownMigration, refuseNewerSchema, schemaNewerThan, type SchemaNewer } from './newer-schema';
import { markReadOnly } from './read-only-dirs';
import { setWriterPragmas } from './writer-pragmas';

export type Schema = typeof schema;
/** The drizzle instance (with the driver handle as `$client`). */
export type Drizzle = BetterSQLite3Database<Schema> & { $client: Database.Database };

/** An open database: the raw better-sqlite3 handle, the drizzle instance and where it lives. */
export interface LineageDb {
  sqlite: Database.Database;
  db: Drizzle;
  dataDir: string;
}

const cache = new Map<string, LineageDb>();

/**
 * The handles still open when the process exits are closed: `process.exit` (the CLI's exit on
 * any failure: a search for an unknown agent, a restore past the latest) ends the process without
 * closing them, which left `lineage.db-wal` and `lineage.db-shm` in a data directory the command
 * only read. Closing checkpoints the WAL and removes both, as a natural exit does.
 */
process.once('exit', () => {
  for (const { sqlite } of cache.values()) {
    try {
      if (sqlite.open) sqlite.close();
    } catch {
      // Exiting anyway: SQLite recovers whatever it leaves at the next open.
    }
  }
});
export { readOnlyDataDirs } from './read-only-dirs';

function migrationsFolder(): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
  if (fs.existsSync(path.join(beside, 'meta', '_journal.json'))) return beside;
  // Bundlers (Next.js, the CLI's bundle) move this module; the package's own layout then.
  const inPackage = path.join(packageRoot(), 'db', 'migrations');
  if (fs.existsSync(path.join(inPackage, 'meta', '_journal.json'))) return inPackage;
  throw new Error(`database migrations not found beside ${beside} nor at ${inPackage}`);
}

/**
 * The page cache of a handle, in KiB (negative: SQLite's unit for a size). A server keeps one handle
 * per data directory for its life, and the history's far reads (a compare from #200 to #1999 of the
 * ui-scale big agent reads ~20,000 pages) missed the driver's 16 MB default page after page: 64 MB
 * took ~12 % off that compare's CPU (bench/ui-scale verb measured in process). Pages are cached as
 * they are read, so a short-lived CLI pays nothing for the bound.
 */
const PAGE_CACHE = -65536;

/** The database file of a data directory. */
export const DATABASE_FILE = 'lineage.db';

/**
 * Whether `dataDir` holds a lineage database: something has synced, served or seeded there. The
 * commands that only read a data directory check this first, so a mistyped `--data` is an error
 * instead of a new, empty data directory.
 */
export function databaseExists(dataDir: string): boolean {
  return fs.existsSync(path.join(path.resolve(dataDir), DATABASE_FILE));
}

/**
 * Opens (creating if needed) `<dataDir>/lineage.db`, one handle per absolute path per process.
 *
 * WAL with `synchronous=NORMAL`: a commit is durable against a process crash (SIGKILL: the WAL
 * frames are already in the OS), the database is never corrupted, and ingest writes and fsyncs the
 * blob before its transaction, so no crash leaves an entry without its blob. Only an OS crash or
 * power cut may roll back the last commits (the client then gets a 409 and re-pulls). `FULL` closes
 * that window but fsyncs on every commit, synchronously on the event loop (about 4 ms here versus
 * 0.3 ms), which caps ingest throughput; set `LINEAGE_DB_SYNCHRONOUS=FULL` to choose it.
 */
export function openDatabase(dataDir: string): LineageDb {
  const dir = path.resolve(dataDir);
  const cached = cache.get(dir);
  if (cached && cached.sqlite.open) return cached;
  if (!writable(dir)) return openReadOnly(dir);
  fs.mkdirSync(dir, { recursive: true });
  const sqlite = new Database(path.join(dir, DATABASE_FILE));
  try {
    setWriterPragmas(sqlite);
    sqlite.pragma(`cache_size = ${PAGE_CACHE}`);
    const db = drizzle({ client: sqlite, schema });
    refuseNewerSqlite(sqlite, path.join(dir, DATABASE_FILE));
    migrate(db, { migrationsFolder: migrationsFolder() });
    fillWordIndex(sqlite);
    const opened: LineageDb = { sqlite, db, dataDir: dir };
    cache.set(dir, opened);
    return opened;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/** `storage_too_new` (newer-schema.ts) for a database a newer lineage migrated; nothing is written. */
function refuseNewerSqlite(sqlite: Database.Database, file: string): void {
  const recorded = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (recorded === undefined) return;
  const applied = (sqlite.prepare('SELECT created_at AS at FROM __drizzle_migrations').all() as { at: number | string }[]).map((r) => r.at);
  refuseNewerSchema(applied, newestKnownMigration(migrationsFolder()), `the database ${file}`);
}

const newerLooks = new WeakMap<Database.Database, { statement: Database.Statement; known: ReturnType<typeof knownMigrations> }>();

/**
 * Whether a newer lineage migrated this open database since it was opened (a `lineage` command of a
 * newer release run on the data directory while a server of this one serves it): one read of the
 * migrations table (a few rows, a statement prepared once per handle), cheap enough for every request.
 */
export function newerSchemaSince(handle: LineageDb): SchemaNewer | null {
  let look = newerLooks.get(handle.sqlite);
  if (look === undefined) {
    // The statement and this release's journal once per handle: no file system call per request.
    look = {
      statement: handle.sqlite.prepare('SELECT count(*) AS count, max(created_at) AS newest FROM __drizzle_migrations'),
      known: knownMigrations(migrationsFolder()),
    };
    newerLooks.set(handle.sqlite, look);
  }
  return schemaNewerThan(look.statement.get() as { count: number; newest: number | null }, look.known);
}

/** Whether `dir` (or, when it does not exist yet, its nearest existing parent) can be written. */
function writable(dir: string): boolean {
  let probe = dir;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    fs.accessSync(probe, fs.constants.W_OK);
  } catch {
    return false;
  }
  if (probe !== dir) return true;
  // Root passes access() on any mode bits, and a read-only mount may pass it too: try a write.
  const test = path.join(probe, `.lineage-write-test-${process.pid}`);
  try {
    fs.writeFileSync(test, '');
    fs.rmSync(test, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * A read-only handle. A WAL database is read through its -shm, which a cleanly closed database no
 * longer has and a read-only directory cannot get (SQLite then says "unable to open database file",
 * and this build has no `immutable` URIs): it is read from a private copy of its file (and -wal)
 * in the temp directory instead, taken once per process.
 */
function openReadOnlyHandle(file: string): Database.Database {
  try {
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
    return sqlite;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_CANTOPEN') throw error;
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-readonly-')), DATABASE_FILE);
    fs.copyFileSync(file, copy);
    if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
    process.once('exit', () => fs.rmSync(path.dirname(copy), { recursive: true, force: true }));
    return new Database(copy, { readonly: true, fileMustExist: true });
  }
}

/**
 * A data directory that cannot be written still serves reads (issue 18 §7): the database is opened
 * read-only, unmigrated (it must be up to date already), and every write fails with SQLite's
 * read-only error, which the ledger reports naming the directory.
 */
function openReadOnly(dir: string): LineageDb {
  const file = path.join(dir, DATABASE_FILE);
  if (!fs.existsSync(file)) {
    throw Object.assign(new Error(`cannot open the database: ${dir} is read-only and holds no ${DATABASE_FILE}`), { code: 'SQLITE_CANTOPEN', path: file });
  }
  let sqlite: Database.Database;
  try {
    sqlite = openReadOnlyHandle(file);
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma(`cache_size = ${PAGE_CACHE}`);
    try {
      refuseNewerSqlite(sqlite, file);
    } catch (error) {
      sqlite.close();
      throw Object.assign(error as Error, { path: file });
    }
    const known = knownMigrations(migrationsFolder()).count;
    const applied = (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
    if (applied < known || wordIndexPending(sqlite)) {
      sqlite.close();
      throw Object.assign(new Error(`cannot open the database ${file} read-only: it needs ${Math.max(known - applied, 1)} migration(s), and ${dir} is read-only`), { code: 'SQLITE_READONLY', path: file });
    }
  } catch (error) {
    if ((error as { path?: unknown }).path === file) throw error;
    throw Object.assign(new Error(`cannot open the database ${file} read-only: ${(error as Error).message}`), { code: 'SQLITE_CANTOPEN', path: file, cause: error });
  }
  const opened: LineageDb = { sqlite, db: drizzle({ client: sqlite, schema }), dataDir: dir };
  cache.set(dir, opened);
  markReadOnly(dir);
  return opened;
}

/** Closes and forgets a handle opened by `openDatabase` (tests, CLI exit). */
export function closeDatabase(handle: LineageDb): void {
  if (cache.get(handle.dataDir) === handle) cache.delete(handle.dataDir);
  if (handle.sqlite.open) handle.sqlite.close();
}
