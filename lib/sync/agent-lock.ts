/**
 * One sync of an agent at a time on this machine. Two `lineage sync` processes of the same agent (a
 * hook that fires on every turn, a cron job, a manual run) used to run side by side: both read the
 * same client state, and the one the target refused still wrote the state's log at the offsets the
 * other had written, or removed the generation the other had just named — a state every later sync
 * found damaged (`state_damaged`). Now a sync, `--rebase`, `lineage state export`, `lineage state
 * compact` and a restore into a live workspace hold the agent's lock from before they read the
 * client state until they have written it; another one waits.
 *
 * The lock is a SQLite write transaction on an empty file beside the state directory
 * (`$ALF_HOME/.alf/locks/<key>.lock`). SQLite takes a POSIX record lock, which the kernel lets go of
 * when its process ends, however it ends: a killed sync never leaves a lock behind, and no lock is
 * ever broken on a guess that its holder is dead. SQLite also keeps two connections of one process
 * apart (two syncs in one process wait for each other too). A waiter polls, without SQLite's busy
 * wait, which would block the event loop the holder may run on; after `LINEAGE_SYNC_LOCK_WAIT_MS`
 * (120 s, the reference's request timeout) it gives up with `agent_busy`, having read and written
 * nothing.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { Runtime } from '@/lib/adapters/types';
import { sha256Hex } from '@/lib/core/uuid';
import { SyncError } from './errors';

const DEFAULT_WAIT_MS = 120_000;

function waitLimitMs(): number {
  const set = Number(process.env.LINEAGE_SYNC_LOCK_WAIT_MS ?? NaN);
  return Number.isInteger(set) && set >= 0 ? set : DEFAULT_WAIT_MS;
}

/** Where the lock of `key` is (`alfHome` is `$ALF_HOME/.alf`): beside the state directory, not in it. */
export const lockFile = (alfHome: string, key: string) => path.join(alfHome, 'locks', `${key}.lock`);

/**
 * The lock a sync of this workspace holds, and how it names it: for OpenClaw its agent id (`agentId`),
 * whose client state is one store per agent id; for ZeroClaw and Hermes, whose agent id is known
 * only once the export has opened the store (and to a sync, not before it locks), the workspace's
 * real path — whatever `agentId` is given. Not its ZeroClaw alias: a sync without `--runtime-agent`
 * syncs the brain.db's sole (or first) agent, which a sync naming that agent's alias syncs too, and
 * keyed by the alias the two took two locks and ran at once. The agents of one brain.db sync one
 * at a time (they read the same database); the alias still names the lock to a waiter.
 */
export function syncLock(args: { runtime: Runtime; workspace: string; runtimeAgent?: string }, agentId: string | null): { key: string; what: string } {
  if (args.runtime === 'openclaw' && agentId !== null) return { key: agentId, what: `agent ${agentId}` };
  let where = path.resolve(args.workspace);
  try {
    where = realpathSync(where);
  } catch {
    // A workspace that is not there: the export says so.
  }
  return {
    key: `${args.runtime}-${sha256Hex(`${where}\0`).slice(0, 32)}`,
    what: `the ${args.runtime} workspace ${args.workspace}${args.runtimeAgent ? ` (agent ${args.runtimeAgent})` : ''}`,
  };
}

/**
 * Runs `work` holding the lock `key` (see above). `what` names the agent in the line a waiter logs
 * and in the `agent_busy` error, which name no command: the holder may be a sync, a restore, a state
 * export or a compaction.
 */
export async function withAgentLock<T>(args: { alfHome: string; key: string; what: string; log?: (line: string) => void }, work: () => Promise<T>): Promise<T> {
  const log = args.log ?? (() => {});
  let said = false;
  const waiting = () => {
    if (!said) log(`waiting for another lineage process to finish with the sync state of ${args.what} on this machine`);
    said = true;
  };
  const db = await lock(lockFile(args.alfHome, args.key), Date.now() + waitLimitMs(), args.what, waiting);
  try {
    return await work();
  } finally {
    // Closing the connection ends its transaction, and the kernel's lock with it.
    db?.close();
  }
}

/**
 * The lock file's connection inside a write transaction. A lock that cannot be taken for any
 * reason but another holder (a file system without POSIX locks, a state directory that cannot be
 * written) is no reason to refuse a sync that ran without one before: null, and the sync runs
 * unlocked (the state write reports what it cannot write).
 */
async function lock(file: string, deadline: number, what: string, waiting: () => void): Promise<Database.Database | null> {
  let db: Database.Database;
  try {
    db = openLockFile(file);
    // Its journal kept in memory: taking the lock creates no file (an idle sync writes nothing).
    db.pragma('journal_mode = MEMORY');
  } catch {
    return null;
  }
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    try {
      // A RESERVED lock, which one connection holds at a time; nothing is ever written to the file.
      db.exec('BEGIN IMMEDIATE');
      return db;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') {
        db.close();
        return null;
      }
    }
    if (Date.now() >= deadline) {
      db.close();
      throw busy(what);
    }
    waiting();
    await sleep(pause);
  }
}

/** The lock file opened (timeout 0: SQLite's own busy wait would block this thread), created only when it is not there. */
function openLockFile(file: string): Database.Database {
  try {
    return new Database(file, { timeout: 0, fileMustExist: true });
  } catch {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return new Database(file, { timeout: 0 });
  }
}

function busy(what: string): SyncError {
  const waited = waitLimitMs();
  return new SyncError(
    'agent_busy',
    `another lineage process (a sync, a restore, a state export or a compaction) still holds the sync state of ${what} on this machine (waited ${waited < 1000 ? `${waited} ms` : `${Math.round(waited / 1000)} s`} for it); nothing was read or written`,
    'run the command again once it has finished',
  );
}
