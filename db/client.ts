/**
 * Opens the data directory's SQLite database (`<data>/lineage.db`) with drizzle and migrates it.
 * Loaded by the CLI as well as the server: no `next` or `server-only` imports here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema';
import { packageRoot } from '../lib/package-root';

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

function migrationsFolder(): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
  if (fs.existsSync(path.join(beside, 'meta', '_journal.json'))) return beside;
  // Bundlers (Next.js, the CLI's bundle) move this module; the package's own layout then.
  const inPackage = path.join(packageRoot(), 'db', 'migrations');
  if (fs.existsSync(path.join(inPackage, 'meta', '_journal.json'))) return inPackage;
  throw new Error(`database migrations not found beside ${beside} nor at ${inPackage}`);
}

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
  fs.mkdirSync(dir, { recursive: true });
  const sqlite = new Database(path.join(dir, DATABASE_FILE));
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma(`synchronous = ${process.env.LINEAGE_DB_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL'}`);
    sqlite.pragma('foreign_keys = ON');
    const db = drizzle({ client: sqlite, schema });
    migrate(db, { migrationsFolder: migrationsFolder() });
    const opened: LineageDb = { sqlite, db, dataDir: dir };
    cache.set(dir, opened);
    return opened;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/** Closes and forgets a handle opened by `openDatabase` (tests, CLI exit). */
export function closeDatabase(handle: LineageDb): void {
  if (cache.get(handle.dataDir) === handle) cache.delete(handle.dataDir);
  if (handle.sqlite.open) handle.sqlite.close();
}
