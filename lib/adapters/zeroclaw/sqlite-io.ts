import { AdapterError } from '@/lib/adapters/shared/errors';
import { copyFile, mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/** How long a read waits for a writer's lock before it gives up with a clear error. */
const LOCK_WAIT_SECONDS = 5;

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/**
 * Runs `read` against a private, consistent copy of a SQLite database that another
 * process may hold open (WAL mode included). The copy is made with SQLite's online
 * backup API from a read-only connection, so it holds exactly the committed state
 * (checkpointed or still in the `-wal`) and never a torn page; the live files are
 * never written. When the live database cannot be opened read-only (e.g. its
 * directory is read-only and no `-shm` exists), the db and `-wal` files are copied
 * instead (`copyStable`) and the copy is opened. A database a writer holds locked (a rollback-journal
 * write in progress) is waited for up to 5 s, then a clear `bad_store` error: its file is never copied
 * then. The temporary directory is always removed.
 */
export async function withReadCopy<T>(dbPath: string, read: (db: Db) => T): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lineage-sqlite-'));
  const copy = path.join(dir, path.basename(dbPath));
  try {
    await snapshotInto(dbPath, copy);
    const db = new Database(copy, { fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'SqliteError') {
      throw new AdapterError('bad_store', `cannot read SQLite database ${dbPath}: ${error.message}`, {
        cause: error,
        hint: "check that it is the agent's own SQLite database, whole (not truncated, not encrypted) and with the tables and columns its runtime writes; nothing was read or changed",
      });
    }
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function snapshotInto(dbPath: string, copy: string): Promise<void> {
  await stat(dbPath); // a missing database is an error, reported with its path
  let live: Db | null = null;
  try {
    live = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: LOCK_WAIT_SECONDS * 1000 });
    // The read lock is taken first, in a transaction the backup runs inside: better-sqlite3's backup
    // takes a first step that meets a writer's lock (SQLITE_BUSY) for a finished copy of no pages.
    live.exec('BEGIN');
    live.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    await live.backup(copy);
    return;
  } catch (error) {
    await rm(copy, { force: true });
    // A database locked by a writer is never copied file by file: the db file then holds pages of
    // the unfinished write, and its rollback journal is the only record of what they replaced.
    if (isLockedError(error)) throw lockedError(dbPath, error);
  } finally {
    live?.close();
  }
  await copyStable(dbPath, copy);
}

/**
 * Runs a write into a live database; a lock another process holds past the connection's busy
 * timeout (the agent in a write), and a write the database itself refuses (its table a VIEW, a
 * trigger's RAISE, a constraint another writer added), are a clear `restore_incomplete`, the
 * database left as it was (the write is one transaction, rolled back).
 */
export function writingLive<T>(dbPath: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (isRefusedWrite(error)) {
      throw new AdapterError('restore_incomplete', `cannot restore into ${dbPath}: the database refused the write (${(error as Error).message}); nothing was changed`, {
        cause: error,
        hint: "its tables are not as its runtime writes them (a view, a trigger or a constraint another program added): fix them, or restore into a new directory with --out, then restore again",
      });
    }
    if (!isLockedError(error)) throw error;
    throw new AdapterError('restore_incomplete', `cannot restore into ${dbPath}: another process holds it locked for a write; nothing was changed`, {
      cause: error,
      hint: 'stop the agent, or run the restore again when it has finished writing',
    });
  }
}

/**
 * Creates a database file with `create`; when that fails, the file (and its journal) is removed
 * again, and so are the directories made for it (`data/memory/` of a fresh ZeroClaw workspace).
 */
export async function withFreshDatabase(dbPath: string, create: () => Promise<void>): Promise<void> {
  const madeDir = await mkdir(path.dirname(dbPath), { recursive: true });
  try {
    await create();
  } catch (error) {
    for (const suffix of ['', '-journal', '-wal', '-shm']) await rm(dbPath + suffix, { force: true });
    if (madeDir !== undefined) await rm(madeDir, { recursive: true, force: true });
    throw error;
  }
}

/** A write SQLite refuses for what the database is (not for a lock, a full disk or a read-only file). */
function isRefusedWrite(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(ERROR|CONSTRAINT|MISMATCH|TOOBIG|RANGE)(_|$)/.test(code);
}

function isLockedError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

function lockedError(dbPath: string, cause: unknown): AdapterError {
  return new AdapterError('bad_store', `cannot read SQLite database ${dbPath}: another process holds it locked for a write (it was still locked after waiting ${LOCK_WAIT_SECONDS} s)`, {
    cause,
    hint: 'run the command again when the agent has finished writing; nothing was read or changed',
  });
}


/** Copies of the db and `-wal` files tried before giving up on a database that keeps changing. */
export const COPY_ATTEMPTS = 5;

/**
 * Copies the db file, then its `-wal`, and keeps the pair only if neither changed meanwhile: a
 * checkpoint between the two copies (pages moved into the db, the WAL restarted) would pair an
 * older db with a newer WAL — committed rows missing, or pages of two states in one b-tree. The
 * `-shm` (the WAL's index) is not copied: the copy's first connection rebuilds it from the WAL.
 * A database still changing after `COPY_ATTEMPTS` copies is a clear error, not a guess.
 */
async function copyStable(dbPath: string, copy: string): Promise<void> {
  for (let attempt = 0; attempt < COPY_ATTEMPTS; attempt++) {
    const before = await fingerprint(dbPath);
    await rm(copy + '-wal', { force: true });
    await copyFile(dbPath, copy);
    await copyFile(dbPath + '-wal', copy + '-wal').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    if ((await fingerprint(dbPath)) === before) return;
  }
  throw new AdapterError('bad_store', `cannot read SQLite database ${dbPath}: it kept changing while it was copied (${COPY_ATTEMPTS} attempts); try again when it is idle`);
}

/**
 * What changes when a database or its WAL is written: each file's size, mtime and inode, the
 * db header (its first 100 bytes) and the WAL header (32 bytes: checkpoint sequence and salts,
 * new whenever the WAL restarts) — a write within the filesystem's timestamp granularity still
 * moves a size or a header.
 */
async function fingerprint(dbPath: string): Promise<string> {
  const parts: string[] = [];
  for (const [suffix, headerBytes] of [['', 100], ['-wal', 32]] as const) {
    let handle;
    try {
      handle = await open(dbPath + suffix, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      parts.push('absent');
      continue;
    }
    try {
      const s = await handle.stat({ bigint: true });
      const header = Buffer.alloc(headerBytes);
      const { bytesRead } = await handle.read(header, 0, headerBytes, 0);
      parts.push(`${s.size}:${s.mtimeNs}:${s.ino}:${header.subarray(0, bytesRead).toString('hex')}`);
    } finally {
      await handle.close();
    }
  }
  return parts.join('|');
}

/** True when the database has a table (or view) of that name. */
export function tableExists(db: Db, name: string): boolean {
  const row = db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?").get(name);
  return row !== undefined;
}

/** Column names of a table, in declaration order (empty when the table is absent). */
export function tableColumns(db: Db, table: string): string[] {
  const rows = db.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as { name: string }[];
  return rows.map((r) => r.name);
}

/** Double-quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The database's own `CREATE` statements in `sqlite_master` order, without the
 * entries SQLite recreates by itself (`sqlite_sequence`, the shadow tables of
 * full-text and R-tree tables — FTS5's `_data`/`_idx`/…, FTS3/4's `_content`/`_segments`/
 * `_segdir`/`_docsize`/`_stat`, R-tree's `_node`/`_rowid`/`_parent` — as SQLite itself
 * names them in `PRAGMA table_list`; auto-indexes have no SQL). This is the DDL sidecar
 * of the raw channel.
 */
export function captureDdl(db: Db): string[] {
  const rows = db
    .prepare('SELECT type, name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid')
    .all() as { type: string; name: string; sql: string }[];
  const shadow = shadowTables(db);
  return rows.filter((r) => r.name !== 'sqlite_sequence' && !shadow.has(r.name)).map((r) => r.sql);
}

/** The shadow tables SQLite keeps for the database's virtual tables (`PRAGMA table_list`'s type 'shadow', SQLite ≥ 3.37; a virtual table of a module this SQLite lacks is listed, not refused). */
function shadowTables(db: Db): Set<string> {
  const listed = db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'").all() as { name: string }[];
  return new Set(listed.map((r) => r.name));
}

/**
 * Rows of a query, read so that what a record cannot carry exactly is said in `warnings` instead
 * of changed without a word: an integer beyond ±2^53 (read exact, then made the nearest JSON
 * number) and TEXT that is not UTF-8 (better-sqlite3 reads U+FFFD for the bad bytes; the row is
 * looked up again by `id` to tell that from a real U+FFFD). Other values are as `all()` gives them.
 */
export function readRowsNoting(db: Db, args: { table: string; sql: string; params?: unknown[]; warnings: string[] }): Record<string, unknown>[] {
  const rows = db.prepare(args.sql).safeIntegers(true).all(...(args.params ?? [])) as Record<string, unknown>[];
  const bytesOf = new Map<string, Database.Statement>();
  for (const row of rows) {
    const id = row.id;
    const name = `${args.table} row ${String(id)}`;
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'bigint') {
        const near = Number(value);
        row[column] = near;
        if (BigInt(near) !== value) args.warnings.push(`${name}: ${column} ${value} is beyond what a JSON number holds exactly; synced as ${near}`);
      } else if (typeof value === 'string' && value.includes('\uFFFD') && (typeof id === 'string' || typeof id === 'bigint')) {
        let statement = bytesOf.get(column);
        if (statement === undefined) {
          statement = db.prepare(`SELECT CAST(${quoteIdent(column)} AS BLOB) AS b FROM ${quoteIdent(args.table)} WHERE id = ?`);
          bytesOf.set(column, statement);
        }
        const stored = (statement.get(id) as { b: unknown } | undefined)?.b;
        if (stored instanceof Uint8Array && !Buffer.from(value, 'utf8').equals(stored)) {
          args.warnings.push(`${name}: ${column} is TEXT that is not valid UTF-8; synced with U+FFFD for the bytes that are not, which a restore writes instead`);
        }
      }
    }
  }
  return rows;
}

/**
 * A JSON number as SQLite is to hold it: a whole number (within ±2^53) an INTEGER, any other a REAL.
 * better-sqlite3 binds every JS number as a REAL, which a column without a declared type (or another
 * writer's untyped column) keeps: an INTEGER carried by a record came back REAL. An INTEGER and a whole
 * REAL read alike (JSON holds no difference), so a whole REAL in a column without a declared type
 * comes back INTEGER; a column declared REAL makes it REAL again (its affinity).
 */
export function sqlNumber(value: number): number | bigint {
  return Number.isSafeInteger(value) ? BigInt(value) : value;
}

/** Inserts one row given as a column → value map (only the listed columns). */
export function insertRow(db: Db, table: string, row: Record<string, unknown>): void {
  const columns = Object.keys(row);
  const sql = `INSERT INTO ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) VALUES (${columns
    .map(() => '?')
    .join(', ')})`;
  db.prepare(sql).run(...columns.map((c) => row[c]));
}

/** The statements a source DDL may hold: what `captureDdl` reads from `sqlite_master` (virtual tables: full-text and R-tree only). */
const SOURCE_DDL_STATEMENT = /^CREATE\s+(?:TABLE|(?:UNIQUE\s+)?INDEX|TRIGGER|VIEW|VIRTUAL\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:"[^"]*"|\S+)\s+USING\s+(?:fts3|fts4|fts5|rtree)\s*\()/i;

/**
 * Why the source's DDL (an archive's schema sidecar, `captureDdl`) cannot build a fresh database, or null
 * when it can. Every statement must be one `CREATE` of a table, index, trigger, view or full-text/R-tree
 * table (so nothing outside the new database is touched: no ATTACH, no other statement), and all of them
 * must run, in order, in a private in-memory database that then has the `tables` the restore writes, nothing in `temp`,
 * and reports that same DDL.
 */
export function sourceDdlProblem(ddl: readonly string[], tables: readonly string[]): string | null {
  const sandbox = new Database(':memory:');
  try {
    for (const [i, sql] of ddl.entries()) {
      if (!SOURCE_DDL_STATEMENT.test(sql)) return `its statement ${i + 1} is not a CREATE of a table, index, trigger or view`;
      try {
        sandbox.prepare(sql).run(); // prepare() refuses a text of more than one statement
      } catch (error) {
        return `its statement ${i + 1} does not run (${(error as Error).message})`;
      }
    }
    for (const table of tables) {
      if ((sandbox.prepare('SELECT type FROM sqlite_master WHERE name = ?').get(table) as { type: string } | undefined)?.type !== 'table') {
        return `it has no ${table} table`;
      }
    }
    if (sandbox.prepare('SELECT 1 FROM sqlite_temp_master').get() !== undefined) return 'it creates temporary objects';
    // What a database built from a source's own DDL reports is that DDL again (`CREATE TABLE … AS SELECT` is not).
    if (JSON.stringify(captureDdl(sandbox)) !== JSON.stringify(ddl)) return 'it is not the schema a database reports';
    return null;
  } finally {
    sandbox.close();
  }
}

/** Rows to write into a fresh database: table → its rows (column → value as SQLite binds it), in order. */
export type TableRows = Map<string, Record<string, unknown>[]>;

/**
 * Builds a fresh database (parent directories included) with the source's own schema — its DDL statements,
 * in order, once `sourceDdlProblem` found none (the caller asks) — holding exactly `rowsFor`'s rows, and says
 * (returned warnings) what it could not make as the source had it.
 *
 * No trigger of the source fires while the rows are written: each table's rows go in right after its
 * `CREATE TABLE`, before any trigger on it exists (a trigger names its table, so comes after it) — as
 * `sqlite3 .dump` writes a table's data before the triggers, yet with every object in the source's order, so
 * the database reports the source's DDL again (`captureDdl`: a sync of it sends the same sidecar). A trigger
 * that changed the rows (an `updated_at`), wrote another table, or RAISEd, changed the restore or failed it.
 * Foreign keys are not checked while it is built (the rows are the source's, which may name a later table).
 *
 * Full-text tables, whose index the archive does not carry, are then filled: one with external content
 * (`content=memories`, ZeroClaw's) by its 'rebuild' command, from the rows just written; one holding its
 * own content (Hermes' `messages_fts`, filled by the source's triggers) with what those triggers put there,
 * replayed in a private copy (the whole DDL but the triggers that do more than fill it, `ftsFillingTriggers`;
 * the same rows) — when no trigger fills it, they refuse the rows there, or the table has no content to
 * rebuild from (`content=''`), it is left empty, said.
 * `rowsFor` is given a database with the whole schema and no rows (for the columns it has).
 */
export async function buildFromSourceDdl(dbPath: string, ddl: readonly string[], rowsFor: (schema: Db) => TableRows): Promise<string[]> {
  await mkdir(path.dirname(dbPath), { recursive: true });
  const schema = new Database(':memory:');
  let rows: TableRows;
  let ownContent: string[];
  let rtrees = new Set<string>();
  let replayDdl: readonly string[] = ddl;
  const warnings: string[] = [];
  try {
    for (const sql of ddl) schema.prepare(sql).run();
    rows = rowsFor(schema);
    rtrees = new Set(rtreeTables(schema));
    ownContent = [...fullTextTables(schema).filter((name) => tableExists(schema, `${name}_content`)), ...rtreeTables(schema)];
    if (ownContent.length > 0) {
      let filling: ReturnType<typeof ftsFillingTriggers> = null;
      try {
        filling = ftsFillingTriggers(schema, ownContent, [...rows.keys()]);
      } catch (error) {
        if ((error as Error).name !== 'SqliteError') throw error; // an insert SQLite cannot EXPLAIN: every trigger fires in the replay
      }
      if (filling !== null) {
        // Only the triggers that do nothing but fill those tables fire in the replay: another (a RAISE, a count) would refuse or change the rows there.
        const others = new Set((schema.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger'").all() as { name: string; sql: string }[]).filter((t) => !filling.triggers.has(t.name)).map((t) => t.sql));
        replayDdl = ddl.filter((sql) => !others.has(sql));
        const unfilled = ownContent.filter((name) => !filling.tables.has(name));
        const unfilledFts = unfilled.filter((name) => !rtrees.has(name));
        if (unfilledFts.length > 0 && [...rows.values()].some((r) => r.length > 0)) {
          warnings.push(`${path.basename(dbPath)}: the full-text table${unfilledFts.length === 1 ? '' : 's'} ${unfilledFts.join(', ')} ${unfilledFts.length === 1 ? 'is' : 'are'} left empty: no trigger of the source fills ${unfilledFts.length === 1 ? 'it' : 'them'} from the restored rows, and the archive does not carry ${unfilledFts.length === 1 ? 'its' : 'their'} index`);
        }
        // An R-tree's rows are its own (no index of other rows): whatever the source held in it, the archive does not carry.
        const unfilledRtrees = unfilled.filter((name) => rtrees.has(name));
        if (unfilledRtrees.length > 0) {
          warnings.push(`${path.basename(dbPath)}: the R-tree table${unfilledRtrees.length === 1 ? '' : 's'} ${unfilledRtrees.join(', ')} ${unfilledRtrees.length === 1 ? 'is' : 'are'} left empty: no trigger of the source fills ${unfilledRtrees.length === 1 ? 'it' : 'them'} from the restored rows, and the archive does not carry ${unfilledRtrees.length === 1 ? 'its' : 'their'} rows`);
        }
      }
    }
  } finally {
    schema.close();
  }
  const scratch = ownContent.length > 0 ? await mkdtemp(path.join(os.tmpdir(), 'lineage-fts-')) : null;
  try {
    let replayed: string | null = null;
    if (scratch !== null) {
      const file = path.join(scratch, 'replay.db');
      const refused = replayWithTriggers(file, replayDdl, rows);
      if (refused === null) replayed = file;
      else warnings.push(`${path.basename(dbPath)}: the ${rtrees.size === 0 ? 'full-text' : rtrees.size === ownContent.length ? 'R-tree' : 'full-text and R-tree'} table${ownContent.length === 1 ? '' : 's'} ${ownContent.join(', ')} ${ownContent.length === 1 ? 'is' : 'are'} left empty: the source's triggers, which fill ${ownContent.length === 1 ? 'it' : 'them'}, refuse the restored rows (${refused})`);
    }
    const db = new Database(dbPath);
    try {
      db.pragma('foreign_keys = OFF');
      if (replayed !== null) db.prepare('ATTACH DATABASE ? AS lineage_replay').run(replayed);
      db.transaction(() => {
        const pending = new Map(rows);
        for (const sql of ddl) {
          db.prepare(sql).run();
          for (const [table, tableRows] of pending) {
            if ((db.prepare("SELECT type FROM main.sqlite_master WHERE name = ?").get(table) as { type: string } | undefined)?.type !== 'table') continue;
            for (const row of tableRows) insertRow(db, table, row);
            pending.delete(table);
          }
        }
        for (const name of fullTextTables(db)) {
          const q = quoteIdent(name);
          if (ownContent.includes(name)) {
            if (replayed === null) continue;
            const columns = tableColumns(db, name).map(quoteIdent).join(', ');
            db.prepare(`INSERT INTO main.${q} (rowid, ${columns}) SELECT rowid, ${columns} FROM lineage_replay.${q}`).run();
          } else {
            try {
              db.transaction(() => db.prepare(`INSERT INTO main.${q} (${q}) VALUES ('rebuild')`).run())();
            } catch (error) {
              if ((error as Error).name !== 'SqliteError') throw error;
              warnings.push(`${path.basename(dbPath)}: the full-text table ${name} is left empty: it has no content of its own or elsewhere to rebuild its index from (${(error as Error).message})`);
            }
          }
        }
        for (const name of rtreeTables(db)) {
          if (replayed === null) continue;
          const q = quoteIdent(name);
          const columns = tableColumns(db, name).map(quoteIdent).join(', '); // the first is the id, its rowid
          db.prepare(`INSERT INTO main.${q} (${columns}) SELECT ${columns} FROM lineage_replay.${q}`).run();
        }
      })();
      if (replayed !== null) db.prepare('DETACH DATABASE lineage_replay').run();
    } finally {
      db.close();
    }
  } finally {
    if (scratch !== null) await rm(scratch, { recursive: true, force: true });
  }
  return warnings;
}

/** What a write never does when it does nothing but fill full-text tables (SQLite's VDBE opcodes, as `EXPLAIN` lists them). */
const OTHER_WRITES = new Set(['OpenWrite', 'Insert', 'Delete', 'IdxInsert', 'IdxDelete', 'Program', 'Clear', 'Destroy', 'SqlExec', 'ParseSchema', 'VCreate', 'VDestroy', 'VRename', 'DropTable', 'DropIndex', 'DropTrigger']);

/**
 * The INSERT triggers, on the `tables` the restore writes, that do nothing but write the full-text tables `fts` (as
 * Hermes' `messages_fts_insert` does), and the tables they fill; null when SQLite's `EXPLAIN` of an insert does not
 * list each trigger's program (then every trigger fires in the replay). A trigger is read from the program SQLite
 * compiles for it: it fills when it updates one of those tables (VUpdate) and writes nothing else, calls no other
 * trigger and cannot RAISE (no Halt with an error).
 */
function ftsFillingTriggers(schema: Db, fts: readonly string[], tables: readonly string[]): { triggers: Set<string>; tables: Set<string> } | null {
  type Op = { opcode: string; p1: number; p4: unknown };
  const explain = (sql: string): Op[] => schema.prepare(`EXPLAIN ${sql}`).all() as Op[];
  const ftsOf = new Map<string, string>();
  for (const name of fts) {
    const update = explain(`INSERT INTO main.${quoteIdent(name)} (rowid) VALUES (NULL)`).find((op) => op.opcode === 'VUpdate');
    if (update === undefined) return null;
    ftsOf.set(String(update.p4), name);
  }
  const triggers = new Set<string>();
  const filled = new Set<string>();
  for (const table of tables) {
    const named = (schema.prepare("SELECT name FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = ?").all(table) as { name: string }[]).map((t) => t.name);
    if (named.length === 0) continue;
    const programs = new Map<string, Op[]>();
    let current: Op[] | null = null;
    for (const op of explain(`INSERT INTO main.${quoteIdent(table)} DEFAULT VALUES`)) {
      const start = op.opcode === 'Init' && typeof op.p4 === 'string' ? /^-- TRIGGER (.*)$/s.exec(op.p4) : null;
      if (start !== null) programs.set(start[1]!, (current = []));
      else current?.push(op);
    }
    if (programs.size === 0) return null; // the triggers' programs are not listed: cannot tell
    for (const [name, ops] of programs) {
      if (!named.includes(name)) continue;
      const updates = ops.filter((op) => op.opcode === 'VUpdate').map((op) => ftsOf.get(String(op.p4)));
      const writesOther = ops.some((op) => OTHER_WRITES.has(op.opcode) || ((op.opcode === 'Halt' || op.opcode === 'HaltIfNull') && op.p1 !== 0));
      if (updates.length === 0 || writesOther || updates.some((t) => t === undefined)) continue;
      triggers.add(name);
      for (const t of updates) filled.add(t!);
    }
  }
  return { triggers, tables: filled };
}

/** The database's full-text (FTS3/4/5) tables, in schema order. */
function fullTextTables(db: Db): string[] {
  const rows = db.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY rowid").all() as { name: string; sql: string }[];
  return rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE\b[\s\S]*?\bUSING\s+fts[345]\s*\(/i.test(r.sql)).map((r) => r.name);
}

/** The database's R-tree tables, in schema order: their rows are their own, carried by no archive. */
function rtreeTables(db: Db): string[] {
  const rows = db.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY rowid").all() as { name: string; sql: string }[];
  return rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE\b[\s\S]*?\bUSING\s+rtree(?:_i32)?\s*\(/i.test(r.sql)).map((r) => r.name);
}

/**
 * Writes the rows into `file` built from the whole DDL first, so that the source's triggers fire as they did
 * when the source was written; null, or what SQLite said when a trigger (or a constraint) refused them.
 */
function replayWithTriggers(file: string, ddl: readonly string[], rows: TableRows): string | null {
  const db = new Database(file);
  try {
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      for (const sql of ddl) db.prepare(sql).run();
      for (const [table, tableRows] of rows) for (const row of tableRows) insertRow(db, table, row);
    })();
    return null;
  } catch (error) {
    if ((error as Error).name !== 'SqliteError') throw error;
    return (error as Error).message;
  } finally {
    db.close();
  }
}
