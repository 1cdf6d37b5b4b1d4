/**
 * The fold of a large local sync's entry off the sync's path (pending-index.ts): the local target
 * starts a detached `lineage index --catch-up` process once the entry is committed, and the sync
 * returns. Nothing waits for it: every reader of the index, and the next ingest, folds what is
 * still pending itself, so a catch-up that is killed, or cannot start, only moves the fold to
 * them. Loads nothing but Node's own modules: a `lineage sync` pays for the spawn alone.
 *
 * A catch-up that fails (its data directory's disk full) keeps why in `<data>/index-catch-up.failed`
 * (pending-index.ts `recordIndexFailure`: `lineage doctor` names it), and the next local sync that
 * stores something starts a catch-up again, whatever it uploaded. So does one that finds entries
 * pending and no catch-up alive (`catchUpLeftUndone`): a catch-up killed, or one whose disk had no
 * room even for its record, left them with nothing to say so.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { processAlive } from '@/lib/core/process-alive';
import { packageRoot } from '@/lib/package-root';

/**
 * Starts `lineage index --catch-up --data DIR` detached (its own session: a terminal's signals do
 * not reach it), its stdio ignored, `unref`'d (this process exits without waiting), run from `/`.
 * Several may run at once: each folds an entry only while it is still pending, under the write lock.
 */
export function startBackgroundIndexer(dataDir: string): void {
  const child = spawn(process.execPath, [path.join(packageRoot(), 'bin', 'lineage.cjs'), 'index', '--catch-up', '--data', path.resolve(dataDir)], {
    detached: true, stdio: 'ignore', cwd: '/', env: process.env,
  });
  // A spawn that fails leaves the entries pending: the next reader or ingest folds them.
  child.on('error', () => undefined);
  child.unref();
}

/** The live catch-up's marker, holding its pid (pending-index.ts `runBackgroundCatchUp`). */
export const INDEX_MARKER_FILE = 'index-catch-up.pid';

/** Where a failed catch-up keeps its failure (pending-index.ts `recordIndexFailure`). */
export const INDEX_FAILED_FILE = 'index-catch-up.failed';

/** Whether the last catch-up of `dataDir` failed and left entries pending (its failure file is there). */
export function indexCatchUpFailed(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, INDEX_FAILED_FILE));
}

const anyPendingOf = new WeakMap<Database.Database, Database.Statement>();

/**
 * Whether entries wait to be folded (`index_pending`) and no background catch-up of `dataDir` is
 * alive (its `index-catch-up.pid` names no live process): what the last catch-up left undone — it
 * was killed, or could not even record its failure. One indexed `SELECT … LIMIT 1` when nothing is
 * pending (a normal sync's case); the marker is read only when something is.
 */
export function catchUpLeftUndone(dataDir: string, sqlite: Database.Database): boolean {
  let anyPending = anyPendingOf.get(sqlite);
  try {
    if (!anyPending) anyPendingOf.set(sqlite, (anyPending = sqlite.prepare('SELECT 1 FROM index_pending LIMIT 1').pluck()));
  } catch {
    return false;
  }
  if (anyPending.get() === undefined) return false;
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, INDEX_MARKER_FILE), 'utf8').trim());
  } catch {
    return true;
  }
  return !processAlive(pid);
}
