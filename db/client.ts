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
  const beside = fileURLToPath(new URL('./migrations', import.meta.url));
  if (fs.existsSync(path.join(beside, 'meta', '_journal.json'))) return beside;
  // Bundlers (Next.js) move this module; fall back to the repository layout.
  const fromCwd = path.resolve(process.cwd(), 'db/migrations');
  if (fs.existsSync(path.join(fromCwd, 'meta', '_journal.json'))) return fromCwd;
  throw new Error(`database migrations not found beside ${beside} nor at ${fromCwd}`);
}

/**
 * Opens (creating if needed) `<dataDir>/lineage.db`, one handle per absolute path per process.
 *
 * WAL with `synchronous=FULL`: the WAL is fsynced at every commit, so an acknowledged sync
 * survives power loss as well as a process kill. `NORMAL` would only survive a process kill: a
 * power cut could roll back a committed sequence the client already recorded, leaving the client
 * ahead of the server. The extra fsync per ingest is small next to the blob's own fsyncs.
 */
export function openDatabase(dataDir: string): LineageDb {
  const dir = path.resolve(dataDir);
  const cached = cache.get(dir);
  if (cached && cached.sqlite.open) return cached;
  fs.mkdirSync(dir, { recursive: true });
  const sqlite = new Database(path.join(dir, 'lineage.db'));
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = FULL');
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
