/**
 * Ledger entries appended before they are folded into the history index (`index_pending`, migration
 * 0018). A local `lineage sync` of a large change appends its entry — blob durable, ledger row and
 * sequence committed, the upload acknowledged — and leaves the fold to a background
 * `lineage index --catch-up` (background-indexer.ts), the way `git commit` writes its objects and
 * leaves `git gc --auto` to run after it. The index is a function of the ledger (rebuild ==
 * incremental), so folding later gives the same rows; every reader makes sure it is not behind:
 * - the embedded storage folds the pending entries before each verb that reads the index;
 * - an ingest folds its agent's pending entries before it checks a delta against the stored tree
 *   and before an entry is indexed in its own transaction (entries are folded in ledger order);
 * - the rebuild replays everything and empties the table.
 *
 * A fold is one `BEGIN IMMEDIATE` transaction per entry that re-checks, under the write lock, that
 * the entry is still its agent's first pending one, folds it with the ingest's own code
 * (`foldEntry` on `dbTarget`), writes its counts on the ledger row and removes the pending row. A
 * fold killed midway rolls back whole; several processes catching up at once fold each entry once.
 * Waiting is never done on the event loop: the lock is tried without SQLite's busy wait and tried
 * again after a timer, and while the background process (`<data>/index-catch-up.pid`, alive) is at
 * work, a reader or an ingest waits for it on timers instead of folding the same entry beside it —
 * `lineage serve` on the data directory a local sync writes keeps answering meanwhile. Nor is a fold
 * a serving process makes itself (no background process alive: it was killed, or never started)
 * run on its event loop: the serving handle has a folder elsewhere (`foldPendingElsewhere`: the
 * embedded storage's ingest thread), since folding a 50,000-record snapshot takes seconds of CPU.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { EntryKind } from '@/db/schema';
import { ArchiveError } from '@/lib/core/archive/types';
import { LedgerError } from '@/lib/ledger/errors';
import type { Ledger } from '@/lib/ledger/ledger';
import { processAlive } from '@/lib/core/process-alive';
import { storageError } from '@/lib/ledger/storage-errors';
import { INDEX_FAILED_FILE, INDEX_MARKER_FILE } from './background-indexer';
import { dbTarget, foldEntry } from './indexer';
import type { PreparedEntry } from './ledger-blob';
import { loadPreparedEntry } from './load-entry';

/** A pending entry, with what its fold needs of its ledger row. */
interface PendingRow {
  agent_id: string;
  seq: number;
  kind: EntryKind;
  blob_key: string;
  sha256: string;
  created_at: string;
}

const PENDING_COLUMNS = 'p.agent_id, p.seq, p.kind, e.blob_key, e.sha256, e.created_at';
const PENDING_JOIN = 'index_pending p JOIN ledger_entries e ON e.agent_id = p.agent_id AND e.seq = p.seq AND e.kind = p.kind';

function build(sqlite: Database.Database) {
  return {
    any: sqlite.prepare('SELECT 1 FROM index_pending LIMIT 1').pluck() as Statement<[], number>,
    anyOf: sqlite.prepare('SELECT 1 FROM index_pending WHERE agent_id = ? LIMIT 1').pluck() as Statement<[string], number>,
    countOf: sqlite.prepare('SELECT count(*) FROM index_pending WHERE agent_id = ?').pluck() as Statement<[string], number>,
    agents: sqlite.prepare('SELECT DISTINCT agent_id FROM index_pending ORDER BY agent_id').pluck() as Statement<[], string>,
    list: sqlite.prepare('SELECT agent_id, seq AS sequence, kind FROM index_pending ORDER BY agent_id, seq, kind') as Statement<[], PendingEntry>,
    firstOf: sqlite.prepare(`SELECT ${PENDING_COLUMNS} FROM ${PENDING_JOIN} WHERE p.agent_id = ? ORDER BY p.seq, p.kind LIMIT 1`) as Statement<[string], PendingRow>,
    add: sqlite.prepare('INSERT INTO index_pending (agent_id, seq, kind) VALUES (?, ?, ?)'),
    remove: sqlite.prepare('DELETE FROM index_pending WHERE agent_id = ? AND seq = ? AND kind = ?'),
    setCounts: sqlite.prepare(`UPDATE ledger_entries SET creates = ?, updates = ?, deletes = ?, moves = ?, raw_changed = ?, raw_deleted = ?
      WHERE agent_id = ? AND seq = ? AND kind = ?`),
  };
}
const cache = new WeakMap<Database.Database, ReturnType<typeof build> | null>();

/** The statements, or null on a database without the table (a read-only one no migration has reached). */
function statementsOf(sqlite: Database.Database): ReturnType<typeof build> | null {
  let found = cache.get(sqlite);
  if (found === undefined) {
    try {
      found = build(sqlite);
    } catch (error) {
      if (!/no such table/.test(String((error as Error).message))) throw error;
      found = null;
    }
    cache.set(sqlite, found);
  }
  return found;
}

/** Whether any entry (of `agentId`, or of any agent) waits to be folded into the index. */
export function indexPending(sqlite: Database.Database, agentId?: string): boolean {
  const s = statementsOf(sqlite);
  if (s === null) return false;
  return (agentId === undefined ? s.any.get() : s.anyOf.get(agentId)) !== undefined;
}

/** The agents with an entry waiting to be folded (the fleet list's `index_behind`): one query on its index. */
export function pendingAgents(sqlite: Database.Database): Set<string> {
  const s = statementsOf(sqlite);
  return new Set(s === null || s.any.get() === undefined ? [] : s.agents.all());
}

/** An entry appended and not folded into the index yet. */
export interface PendingEntry {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
}

/** Every entry waiting to be folded, by agent and sequence (what `lineage doctor` lists). */
export function pendingEntries(sqlite: Database.Database): PendingEntry[] {
  return statementsOf(sqlite)?.list.all() ?? [];
}

/** Records, inside the transaction that appends it, that this entry is not indexed yet. */
export function markIndexPending(sqlite: Database.Database, entry: { agentId: string; seq: number; kind: EntryKind }): void {
  const s = statementsOf(sqlite);
  if (s === null) throw new Error('index_pending is missing: the database was not migrated');
  s.add.run(entry.agentId, entry.seq, entry.kind);
}

/** How long a catch-up waits, in all, for another process's write lock (its fold or ingest is making progress). */
const BUSY_DEADLINE_MS = 10 * 60_000;
/** Between two tries of the lock, and two looks at the background process. */
const RETRY_MS = 25;
/** How long a reader or an ingest leaves pending entries to a live background process before folding them itself. */
const BACKGROUND_WAIT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const running = new WeakMap<Database.Database, Promise<number>>();

/**
 * Folds the pending entries (of one agent, when given) on another thread, resolving to how many it
 * folded, or to null when it cannot run (then the fold is made here after all).
 */
export type PendingFolder = (agentId: string | undefined, options?: CatchUpOptions) => Promise<number | null>;

/**
 * How a catch-up waits: `busyWaitMs`, how long in all for another process's write lock (10 minutes
 * unless given); `backgroundUntil`, until when (epoch ms) for a live background catch-up before it
 * folds beside it (BACKGROUND_WAIT_MS from now unless given: the reads' agent-by-agent folds share one).
 */
export interface CatchUpOptions {
  busyWaitMs?: number;
  backgroundUntil?: number;
}
const folders = new WeakMap<Database.Database, PendingFolder>();

/**
 * From now on the catch-ups asked of this handle are made by `folder` (a serving process: on its
 * ingest thread) instead of on the caller's thread; `null` makes them here again.
 */
export function foldPendingElsewhere(sqlite: Database.Database, folder: PendingFolder | null): void {
  if (folder) folders.set(sqlite, folder);
  else folders.delete(sqlite);
}

/**
 * Folds every pending entry (of `agentId` only, when given) into the index, in ledger order;
 * resolves to the number this call folded. One catch-up at a time per database handle: a second
 * call waits for the first, then looks again. A database another process holds locked is waited
 * for; a rebuild running in this process is `busy`.
 */
export async function catchUpIndex(ledger: Ledger, agentId?: string, options: CatchUpOptions = {}): Promise<number> {
  const { sqlite } = ledger.db;
  if (!indexPending(sqlite, agentId)) return 0;
  // The background process is folding them: wait for it (it may be parsing the entry, not yet locking),
  // for a while — one that is stopped or stuck leaves the fold to this process after that.
  const until = options.backgroundUntil ?? Date.now() + BACKGROUND_WAIT_MS;
  for (let pid = backgroundCatchUp(ledger.db.dataDir); pid !== null && pid !== process.pid && Date.now() < until; pid = backgroundCatchUp(ledger.db.dataDir)) {
    await sleep(RETRY_MS);
    if (!indexPending(sqlite, agentId)) return 0;
  }
  for (;;) {
    const before = running.get(sqlite);
    if (before === undefined) break;
    await before.catch(() => 0);
    if (!indexPending(sqlite, agentId)) return 0;
  }
  const elsewhere = folders.get(sqlite);
  const run = elsewhere ? elsewhere(agentId, options).then((n) => n ?? foldPending(ledger, agentId, options)) : foldPending(ledger, agentId, options);
  running.set(sqlite, run);
  try {
    return await run;
  } catch (error) {
    // A damaged blob stops its agent's history there: kept for indexNotice (the fold may have run on another thread).
    if (error instanceof LedgerError && error.code === 'blob_corrupt') noteFoldFailure(sqlite, error);
    throw error;
  } finally {
    running.delete(sqlite);
  }
}

/**
 * Agent by agent: one whose next pending entry cannot be folded (its blob damaged: `blob_corrupt`,
 * unreadable, or holding what the fold does not expect) stops there, the others are folded all the
 * same, and the first such error is thrown at the end. A failure of the database itself (its lock
 * held, read-only, its disk full) would fail every agent alike: thrown at once.
 */
async function foldPending(ledger: Ledger, agentId: string | undefined, options: CatchUpOptions): Promise<number> {
  const { sqlite } = ledger.db;
  const s = statementsOf(sqlite)!;
  let folded = 0;
  let failure: unknown = null;
  for (const agent of agentId === undefined ? s.agents.all() : [agentId]) {
    let row: PendingRow | undefined;
    try {
      for (row = s.firstOf.get(agent); row !== undefined; row = s.firstOf.get(agent)) {
        const prepared = await loadPreparedEntry(ledger, row, { fast: true });
        if (await foldOne(ledger, s, row, prepared, options.busyWaitMs ?? BUSY_DEADLINE_MS)) folded++;
      }
    } catch (error) {
      if (row !== undefined && error instanceof Object) failedEntries.set(error, { agent_id: row.agent_id, sequence: row.seq, kind: row.kind });
      if (DATABASE_WIDE.has(foldFailureCode(error))) throw error;
      failure ??= error;
    }
  }
  if (failure !== null) throw failure;
  // Everything folded: a catch-up's failure recorded earlier (indexFailure) no longer holds.
  if (folded > 0 && !indexPending(sqlite)) clearIndexFailure(ledger.db.dataDir);
  return folded;
}

/** The entry a fold failed on, by the error it threw (what `recordIndexFailure` names). */
const failedEntries = new WeakMap<object, PendingEntry>();

/** Folds `row` if it is still its agent's first pending entry; false when another process folded it first. */
async function foldOne(ledger: Ledger, s: ReturnType<typeof build>, row: PendingRow, prepared: PreparedEntry, busyWaitMs: number): Promise<boolean> {
  const { sqlite, db } = ledger.db;
  const deadline = Date.now() + busyWaitMs;
  const fold = sqlite.transaction((): boolean => {
    const head = s.firstOf.get(row.agent_id);
    if (head === undefined || head.seq !== row.seq || head.kind !== row.kind) return false;
    const c = foldEntry(dbTarget(db, row.agent_id), { agentId: row.agent_id, seq: row.seq, syncedAt: row.created_at }, prepared);
    s.setCounts.run(c.creates, c.updates, c.deletes, c.moves, c.raw_changed, c.raw_deleted, row.agent_id, row.seq, row.kind);
    s.remove.run(row.agent_id, row.seq, row.kind);
    // The crash test's moment (`LINEAGE_INDEX_CRASH_AT=folded`): every row written, nothing committed.
    if (process.env.LINEAGE_INDEX_CRASH_AT === 'folded') process.kill(process.pid, 'SIGKILL');
    return true;
  });
  for (;;) {
    if (sqlite.inTransaction) {
      throw new LedgerError('busy', 'the history index is being rebuilt in this process; retry when it finishes');
    }
    // The lock tried without SQLite's busy handler, which would wait on the event loop.
    const busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
    sqlite.pragma('busy_timeout = 0');
    try {
      return fold.immediate();
    } catch (error) {
      const mapped = storageError(error, ledger.db.dataDir);
      // Another process holds the write lock (its own fold, an ingest, a rebuild): wait for it.
      if (mapped?.code === 'busy' && Date.now() < deadline) {
        await sleep(RETRY_MS);
        continue;
      }
      throw mapped?.code === 'disk_full' ? foldFull(mapped, ledger.db.dataDir, row) : (mapped ?? error);
    } finally {
      sqlite.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }
}

/**
 * A fold the disk had no room for, in its own words: the storage's `disk_full` says "nothing was
 * stored", an upload's outcome — a fold is asked by a read, an ingest (before its own entry) or a
 * catch-up, and the entry it folds is stored in the ledger already (acknowledged); what is missing is
 * its index rows. Said so, and that nothing else was stored (the ingest that asked stored nothing).
 */
function foldFull(mapped: LedgerError, dataDir: string, row: PendingRow): LedgerError {
  return new LedgerError('disk_full',
    `no space left on the disk holding ${dataDir} to fold agent ${row.agent_id} sequence ${row.seq} (${row.kind}) into the history index: `
    + 'that entry is stored in the ledger; the history index (the dashboard, search, history) lacks it and what follows it until it is folded, '
    + 'and nothing else was stored (an upload that asked for this fold first was not). Free some space and retry', mapped.details, { cause: mapped.cause });
}

/**
 * Waits, without folding anything itself, until no entry is pending and no background catch-up
 * holds its marker: benchmarks and tests that model a user's syncs minutes apart, and look at the index
 * as the detached process left it.
 */
export async function waitForIndexCaughtUp(ledger: Ledger, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (indexPending(ledger.db.sqlite) || backgroundCatchUp(ledger.db.dataDir) !== null) {
    if (Date.now() > deadline) throw new Error(`the index of ${ledger.db.dataDir} did not catch up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const MARKER = INDEX_MARKER_FILE;
/** A catch-up's failure, kept for the next reader (recordIndexFailure). */
const FAILED = INDEX_FAILED_FILE;

/** The pid of the live background catch-up of `dataDir` (`lineage index --catch-up`), or null. */
export function backgroundCatchUp(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, MARKER), 'utf8').trim());
  } catch {
    return null;
  }
  return processAlive(pid) ? pid : null;
}

/**
 * The background catch-up's run (`lineage index --catch-up`): under `<data>/index-catch-up.pid`,
 * created with this process's pid unless a live one holds it (that one folds what this sync left:
 * this returns 0 at once), removed when nothing is pending. An entry appended while the marker
 * was being removed is looked for again, so none waits for a reader because two processes each
 * left it to the other. A marker a killed process left behind names a dead pid: it is replaced.
 */
export async function runBackgroundCatchUp(ledger: Ledger): Promise<number> {
  const { dataDir } = ledger.db;
  const file = path.join(dataDir, MARKER);
  let folded = 0;
  for (;;) {
    let taken: boolean;
    try {
      taken = takeMarker(file);
    } catch (error) {
      // No room for the marker (a full disk keeps the failure recorded before, if any): not the storage's
      // "nothing was stored", an upload's words — the entries waiting are stored; their fold is what waits.
      const mapped = storageError(error, dataDir);
      throw mapped?.code === 'disk_full'
        ? new LedgerError('disk_full', `no space left on the disk holding ${dataDir} for the catch-up's marker: nothing was folded. Free some space and retry`, mapped.details, { cause: mapped.cause })
        : (mapped ?? error);
    }
    if (!taken) return folded;
    // The race tests' moment (`LINEAGE_INDEX_STOP_AT=marked`): the marker is this process's, nothing folded yet.
    if (process.env.LINEAGE_INDEX_STOP_AT === 'marked') process.kill(process.pid, 'SIGSTOP');
    try {
      folded += await catchUpIndex(ledger);
    } catch (error) {
      // Nobody waits for a background catch-up: its failure is kept for the next reader (indexFailure).
      recordIndexFailure(dataDir, ledger.db.sqlite, error, file);
      throw error;
    } finally {
      fs.rmSync(file, { force: true });
    }
    if (!indexPending(ledger.db.sqlite)) {
      clearIndexFailure(dataDir);
      return folded;
    }
  }
}

/**
 * Why the last catch-up of a data directory failed (`<data>/index-catch-up.failed`): the entry it
 * could not fold, its error's code and message, and when. What `lineage doctor` names while that
 * entry is still pending.
 */
export interface IndexFailure extends PendingEntry {
  code: string;
  error: string;
  at: string;
}

/**
 * Keeps a catch-up's failure where `indexFailure` finds it. On a full disk no new file can be
 * made: the failure is written into the marker this process holds (its page is already the
 * file's: a few hundred bytes written over it need no new space), and the marker renamed to
 * `index-catch-up.failed`; else (no marker: a fold `lineage doctor --repair` made) a new file is
 * written. A failure that cannot be kept anywhere is not the catch-up's own error: the caller
 * throws that.
 */
export function recordIndexFailure(dataDir: string, sqlite: Database.Database, error: unknown, marker?: string): void {
  const entry = (error instanceof Object ? failedEntries.get(error) : undefined) ?? pendingEntries(sqlite)[0];
  if (entry === undefined) return;
  const code = error instanceof LedgerError ? error.code : ((error as NodeJS.ErrnoException | null)?.code ?? 'internal');
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
  const text = `${JSON.stringify({ agent_id: entry.agent_id, sequence: entry.sequence, kind: entry.kind, code, error: message, at: new Date().toISOString() } satisfies IndexFailure)}\n`;
  const failed = path.join(dataDir, FAILED);
  if (marker !== undefined) {
    try {
      const fd = fs.openSync(marker, 'r+');
      try {
        fs.writeSync(fd, text, 0);
        fs.ftruncateSync(fd, Buffer.byteLength(text));
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(marker, failed);
      return;
    } catch {
      // written as a file of its own below
    }
  }
  try {
    fs.writeFileSync(failed, text);
  } catch {
    // Nowhere to keep it (the caller throws the error itself): not an empty file either.
    try {
      fs.rmSync(failed, { force: true });
    } catch {
      // indexFailure reads an unreadable record as none
    }
  }
}

/**
 * The failure the last catch-up recorded (recordIndexFailure), while the entry it names is still
 * pending; null when there is none, or when that entry has been folded since (a reader, an ingest
 * or a rebuild did it).
 */
export function indexFailure(dataDir: string, sqlite: Database.Database): IndexFailure | null {
  let failure: IndexFailure;
  try {
    failure = JSON.parse(fs.readFileSync(path.join(dataDir, FAILED), 'utf8')) as IndexFailure;
  } catch {
    return null;
  }
  const pending = pendingEntries(sqlite);
  return pending.some((e) => e.agent_id === failure.agent_id && e.sequence === failure.sequence && e.kind === failure.kind) ? failure : null;
}

/** Forgets the recorded failure: everything it named is folded. */
function clearIndexFailure(dataDir: string): void {
  try {
    fs.rmSync(path.join(dataDir, FAILED), { force: true });
  } catch {
    // a read-only directory: indexFailure ignores a failure whose entry is no longer pending
  }
}

/** Creates the marker with this pid, or replaces one whose process is gone; false when a live one holds it. */
function takeMarker(file: string): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (backgroundCatchUp(path.dirname(file)) !== null) return false;
      fs.rmSync(file, { force: true });
      continue;
    }
    try {
      fs.writeSync(fd, `${process.pid}\n`);
      return true;
    } catch (error) {
      // Created, and no room for its pid (a full disk gives a file its name before its first page): not left empty.
      fs.rmSync(file, { force: true });
      throw error;
    } finally {
      fs.closeSync(fd);
    }
  }
  return false;
}

/** A fold that failed on an agent's first pending entry in this process, for indexNotice and the reads' retries. */
interface FoldFailure {
  sequence: number;
  kind: EntryKind;
  code: string;
  /** When this entry was first seen failing (what the notice says). */
  at: string;
  /** When it last failed, and how many entries of its agent were pending then: a read retries after a new entry or RETRY_AFTER_MS. */
  lastMs: number;
  pending: number;
}
const foldFailures = new WeakMap<Database.Database, Map<string, FoldFailure>>();

/** How long the reads of this process leave an entry they saw fail before trying its fold again. */
export const RETRY_AFTER_MS = 60_000;
/** How long a read waits for another process's write lock before it answers from the index as it stands. */
export const READ_BUSY_WAIT_MS = 5_000;

/** Failures of the database rather than of one entry: every agent's fold meets them. */
const DATABASE_WIDE = new Set(['busy', 'read_only', 'disk_full', 'database_error']);

/**
 * A fold failure's code, for the notice: a LedgerError's own (`blob_corrupt`, `busy`, …); the
 * archive reader's refusal of a blob whose sha256 matches (`bad_archive`: content the fold does
 * not take); SQLite's busy, read-only or full database (storage-errors.ts), or any other SQLite
 * failure to write it (`database_error`: SQLITE_IOERR_WRITE, …); a file-system error,
 * which in a fold can only come from reading the entry's blob (`blob_unreadable`: SQLite's errors
 * are SQLITE_*); anything else the fold threw (`fold_failed`).
 */
export function foldFailureCode(error: unknown): string {
  if (error instanceof LedgerError) return error.code;
  if (error instanceof ArchiveError) return 'bad_archive';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return storageError(error, null)?.code ?? (code.startsWith('SQLITE_CONSTRAINT') ? 'fold_failed' : 'database_error');
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return FULL_ERRNO.has(code) ? 'disk_full' : 'blob_unreadable';
  return 'fold_failed';
}
const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);

/** Notes `error` as the failure of `agentId`'s first pending entry; true when that entry was not seen failing before. */
function noteFoldFailure(sqlite: Database.Database, error: unknown, agentId?: string): boolean {
  const code = foldFailureCode(error);
  const s = statementsOf(sqlite);
  if (s === null) return false;
  const agent = agentId ?? (error instanceof LedgerError ? error.details.agentId : undefined);
  if (agent === undefined) return false;
  const row = s.firstOf.get(agent);
  if (row === undefined) return false;
  let byAgent = foldFailures.get(sqlite);
  if (!byAgent) foldFailures.set(sqlite, (byAgent = new Map()));
  const before = byAgent.get(agent);
  // The first time this entry was seen failing is kept (the notice's `since`); the last, for the retries.
  const again = before !== undefined && before.sequence === row.seq && before.kind === row.kind;
  const at = again ? before.at : new Date().toISOString();
  byAgent.set(agent, { sequence: row.seq, kind: row.kind, code, at, lastMs: Date.now(), pending: s.countOf.get(agent) ?? 1 });
  return !again;
}

const logged = new WeakMap<Database.Database, Map<string, string>>();

/**
 * Said once per entry and cause in the operator's log, by the reads of the serving thread (a read
 * answers all the same; the notice is the tenant's). Not by noteFoldFailure: the ingest thread's
 * catch-up notes its failures too.
 */
function logFoldFailure(sqlite: Database.Database, agentId: string, error: unknown): void {
  const seen = foldFailures.get(sqlite)?.get(agentId);
  if (seen === undefined) return;
  let byAgent = logged.get(sqlite);
  if (!byAgent) logged.set(sqlite, (byAgent = new Map()));
  const key = `${seen.sequence} ${seen.kind} ${seen.code}`;
  if (byAgent.get(agentId) === key) return;
  byAgent.set(agentId, key);
  console.error(`[index] agent ${agentId} sequence ${seen.sequence} (${seen.kind}) could not be folded into the history index (${seen.code}); reads answer without it: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Whether a read leaves agent `agentId`'s fold alone for now: this process saw it fail on the
 * agent's first pending entry less than RETRY_AFTER_MS ago, and nothing changed since — the same
 * entry first, no new entry appended (a repair that folded it, or another process's fold, changes
 * the first). A damaged 50,000-record snapshot is then not read and inflated again by every page.
 */
function recentlyFailed(sqlite: Database.Database, s: ReturnType<typeof build>, agentId: string): boolean {
  const seen = foldFailures.get(sqlite)?.get(agentId);
  if (seen === undefined || Date.now() - seen.lastMs >= RETRY_AFTER_MS) return false;
  const row = s.firstOf.get(agentId);
  return row !== undefined && row.seq === seen.sequence && row.kind === seen.kind && (s.countOf.get(agentId) ?? 0) === seen.pending;
}

/**
 * The fold a read makes first (the embedded storage's verbs, `indexNotice`): the pending entries of
 * every agent (of `agentId`, when given), agent by agent, each as far as it goes. A fold that fails
 * fails no read: it is noted (why, since when) and the read answers from the history index as it
 * stands — indexNotice says where that stops, why and what to run. An agent whose fold this process
 * saw fail is not tried again until something changes (recentlyFailed). Another process's write lock
 * is waited for READ_BUSY_WAIT_MS, not the catch-up's minutes; held longer, it fails every agent's
 * fold alike, and all are noted so. Resolves to such a failure of the database (busy, read-only,
 * full, failing to write), null when there was none: a caller with no notice to show (a one-shot
 * CLI read) throws it rather than answer an incomplete history without a word.
 */
export async function catchUpForRead(ledger: Ledger, agentId?: string): Promise<unknown> {
  const { sqlite } = ledger.db;
  const s = statementsOf(sqlite);
  if (s === null || !indexPending(sqlite, agentId)) return null;
  const agents = agentId === undefined ? s.agents.all() : [agentId];
  // One wait for a live background catch-up, for all the agents (not one each).
  const options = { busyWaitMs: READ_BUSY_WAIT_MS, backgroundUntil: Date.now() + BACKGROUND_WAIT_MS };
  for (const [i, agent] of agents.entries()) {
    if (recentlyFailed(sqlite, s, agent)) continue;
    try {
      await catchUpIndex(ledger, agent, options);
    } catch (error) {
      noteFoldFailure(sqlite, error, agent);
      logFoldFailure(sqlite, agent, error);
      if (DATABASE_WIDE.has(foldFailureCode(error))) {
        for (const other of agents.slice(i + 1)) noteFoldFailure(sqlite, error, other);
        return error;
      }
    }
  }
  return null;
}

/**
 * What an agent's pages say when the history they show stops short of its ledger: entry
 * `pending_from` (and every later one) is stored and acknowledged, and could not be folded into the
 * history index — its blob is damaged (`blob_corrupt`), a catch-up failed on it and recorded why
 * (index-catch-up.failed), or the data directory is served read-only (nothing folds it). Worded for
 * the agent's owner (a tenant): no server path, no blob key; `action` is what the operator runs.
 */
export interface IndexNotice {
  agent_id: string;
  /** The last sequence the history shown includes; null when none of the agent's entries is folded. */
  indexed_through: number | null;
  /** The first entry stored and not folded: it and every later one are missing from what is shown. */
  pending_from: number;
  kind: EntryKind;
  /** How many of the agent's entries are stored and not folded. */
  pending: number;
  code: string;
  /** Why the fold cannot be made. */
  reason: string;
  /** When the failure was seen (a recorded catch-up's time, or this process's fold), null when not known. */
  since: string | null;
  /** What the operator runs. */
  action: string;
  /** The whole notice in one sentence (what the page shows). */
  message: string;
}

const REASONS: Record<string, string> = {
  blob_corrupt: 'its blob in the ledger is missing or damaged (it no longer matches the sha256 recorded when it was stored)',
  disk_full: 'the disk holding the data directory was full when it was to be folded',
  read_only: 'the data directory (its database) cannot be written, so nothing can fold it here',
  busy: 'another process held the database\'s write lock for longer than a read waits (a long fold, an import, a rebuild)',
  blob_unreadable: 'its blob could not be read from the blob store (the file system refused it)',
  bad_archive: 'its blob (intact: it matches the sha256 recorded) holds an archive the history index cannot read',
  fold_failed: 'folding it failed on content the history index does not expect',
  database_error: 'the database refused the fold\'s write (an I/O error of its disk or file system)',
};

const ACTIONS: Record<string, string> = {
  blob_corrupt: 'The operator runs `lineage doctor` on the data directory (it names the damaged blob), restores that blob from a backup, then runs `lineage index --catch-up` (or `lineage doctor --repair`) to fold it.',
  disk_full: 'The operator frees some space on that disk, then runs `lineage index --catch-up` (or `lineage doctor --repair`) on the data directory to fold it; `lineage doctor` names the entry.',
  read_only: 'The operator serves the data directory writable again (or runs `lineage index --catch-up` on it), and `lineage doctor` lists what waits.',
  busy: 'Reads try again within a minute; if this stays, the operator runs `lineage doctor` on the data directory (it says what holds the database) and then `lineage index --catch-up`.',
  blob_unreadable: 'The operator runs `lineage doctor` on the data directory (it names the blob), makes that blob file readable again (or restores it from a backup), then runs `lineage index --catch-up` (or `lineage doctor --repair`).',
  bad_archive: 'The operator runs `lineage doctor` on the data directory (it names the entry), then `lineage index --rebuild`; if the rebuild stops at the same entry, that entry needs restoring from a backup.',
  fold_failed: 'The operator runs `lineage doctor` on the data directory (it names the entry), then `lineage index --rebuild`; if the rebuild stops at the same entry, that entry needs restoring from a backup.',
  database_error: 'The operator checks the disk and file system holding the data directory (the server\'s log names the error), then runs `lineage doctor` and `lineage index --catch-up` on it.',
};

/**
 * Why agent `agentId`'s history index lacks an entry its ledger holds, when that lasts; null when
 * nothing of the agent is pending, or when what is pending is merely not folded yet (a background
 * catch-up at work, an entry appended a moment ago: the next read folds it). Asked after the read's
 * own fold (`catchUpIndex`): an entry still pending then is one a fold failed on. Its reason, in
 * order: the one a background catch-up recorded, the failure this process saw (a damaged blob), a
 * read-only data directory; for an entry pending with none of those (its fold failed on the ingest
 * thread beside another agent's, which alone was thrown), this agent's own fold is tried once more.
 */
export async function indexNotice(ledger: Ledger, agentId: string): Promise<IndexNotice | null> {
  const { sqlite, dataDir } = ledger.db;
  const s = statementsOf(sqlite);
  const first = s?.firstOf.get(agentId);
  if (!s || first === undefined) return null;
  let cause = knownCause(ledger, first);
  if (cause === null && !sqlite.readonly && backgroundCatchUp(dataDir) === null) {
    await catchUpForRead(ledger, agentId);
    const now = s.firstOf.get(agentId);
    if (now === undefined) return null;
    cause = knownCause(ledger, now);
  }
  const at = s.firstOf.get(agentId);
  if (cause === null || at === undefined) return null;
  const pending = s.countOf.get(agentId) ?? 1;
  const reason = REASONS[cause.code] ?? `its fold failed (${cause.code})`;
  const action = ACTIONS[cause.code] ?? 'The operator runs `lineage doctor` on the data directory (it names the entry and why), then `lineage index --catch-up` once that is fixed.';
  const indexedThrough = at.seq > 0 ? at.seq - 1 : null;
  const message = `The history shown stops at ${indexedThrough === null ? 'no sequence (none of this agent\'s entries is in the history index)' : `sequence ${indexedThrough}`}: `
    + `sequence ${at.seq} (${at.kind})${pending > 1 ? ` and the ${pending - 1} after it` : ''} ${pending > 1 ? 'are' : 'is'} stored in the ledger but could not be folded into the history index, because ${reason}. ${action}`;
  return { agent_id: at.agent_id, indexed_through: indexedThrough, pending_from: at.seq, kind: at.kind, pending, code: cause.code, reason, since: cause.since, action, message };
}

/** Why `row` (an agent's first pending entry) stays pending, when this process or a recorded catch-up knows. */
function knownCause(ledger: Ledger, row: PendingRow): { code: string; since: string | null } | null {
  const { sqlite, dataDir } = ledger.db;
  // The catch-up's record first: it is the older sighting (every read since has failed the same way).
  const recorded = indexFailure(dataDir, sqlite);
  if (recorded !== null && recorded.agent_id === row.agent_id && recorded.sequence === row.seq && recorded.kind === row.kind) return { code: recorded.code, since: recorded.at };
  const seen = foldFailures.get(sqlite)?.get(row.agent_id);
  if (seen !== undefined && seen.sequence === row.seq) return { code: seen.code, since: seen.at };
  if (sqlite.readonly) return { code: 'read_only', since: null };
  return null;
}
