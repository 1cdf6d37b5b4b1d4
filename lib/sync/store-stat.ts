/**
 * The store stat: the stat cache of a runtime whose store is a SQLite database (ZeroClaw's
 * `brain.db`, Hermes's `state.db`), whose export reads the database as a whole (a consistent copy)
 * and has no per-file results to carry over. What it does keep: the stat data (inode, size, mtime
 * and ctime in nanoseconds, as git's index keeps them) of every file under the workspace, the
 * database and its `-wal` included, taken before the last export read anything. When a sync finds
 * every one of them the same, no file come or gone, none racy, and the client state still at the
 * sequence and base that export led to, the export would be that one again: the sync is idle
 * without opening the database or any other file of the workspace.
 *
 * Every file is taken (not only those the export reads): a change anywhere makes the sync export
 * as before, which is always right. Left out: `-shm` files (SQLite's shared-memory index of the
 * WAL, which any reader rewrites; the data are in the database and its WAL) and the workspace
 * marker a sync itself writes. A symbolic link anywhere means no store stat (its target's changes
 * would not show in the link's stat data): such a workspace is exported every time.
 *
 * Racy timestamps (git's rule, made stricter): a file changed within the clock tick of the moment
 * its stat data were taken can keep all of them on a coarse filesystem clock. An entry whose mtime
 * or ctime is not older than one second before that moment is never trusted, nor one not older
 * than the cache file's own mtime: the store is then exported again.
 *
 * File: `store-<16 hex of sha256(runtime, workspace, runtime agent)>.stat` in the state directory,
 * JSON, replaced by rename, not flushed (a torn file does not parse and is ignored).
 */
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileStat, Runtime } from '@/lib/adapters/types';
import { sha256Hex } from '@/lib/core/uuid';
import { SYNCED_MARKER_FILE } from '@/lib/adapters/shared/sync-marker';
import { readSyncedFrom, writeSyncedFrom } from './synced-marker';
import type { SyncOptions, SyncOutput } from './sync';
import { baseIdentity, isRacy, sameStat } from './stat-cache';
import { readClientState, statePaths, writeFileAtomic, writeStateToml, type ClientState } from './state';

const VERSION = 'lineage-store-stat 1';
/** How far back from the moment stat data were taken a timestamp still counts as racy. */
const RACY_NS = 1_000_000_000n;

/** The stat data of every file under a workspace, and when they were taken (ns since the epoch). */
export interface StoreFingerprint {
  takenNs: bigint;
  files: Map<string, FileStat>;
}

/** What the last sync recorded: the fingerprint taken before its export, and where that export led. */
export interface StoreStat {
  agentId: string;
  agentName: string;
  sequence: number;
  /** The base file's identity (`baseIdentity`) after that sync. */
  base: string;
  fingerprint: StoreFingerprint;
  /** The cache file's mtime (ns). */
  writtenNs: bigint;
}

export interface StoreKey {
  runtime: Runtime;
  workspace: string;
  runtimeAgent?: string;
}

export function storeStatPath(alfHome: string, key: StoreKey): string {
  const id = sha256Hex(new TextEncoder().encode(JSON.stringify([key.runtime, path.resolve(key.workspace), key.runtimeAgent ?? null]))).slice(0, 16);
  return path.join(alfHome, 'state', `store-${id}.stat`);
}

/** The workspace's fingerprint; null when it cannot be had (a link, an unreadable directory). */
export function takeFingerprint(workspace: string): StoreFingerprint | null {
  const takenNs = BigInt(Date.now()) * 1_000_000n;
  const files = new Map<string, FileStat>();
  const visit = (dir: string, rel: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return false;
    }
    for (const name of names) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (childRel === SYNCED_MARKER_FILE || name.endsWith('-shm')) continue;
      let info: BigIntStats | undefined;
      try {
        info = lstatSync(path.join(dir, name), { bigint: true });
      } catch {
        return false; // gone meanwhile: the export decides
      }
      if (info.isDirectory()) {
        if (!visit(path.join(dir, name), childRel)) return false;
      } else if (info.isFile()) {
        files.set(childRel, { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs });
      } else {
        return false;
      }
    }
    return true;
  };
  return visit(workspace, '') ? { takenNs, files } : null;
}

/** Whether `now` shows the very files `stat` recorded, none of them racy. */
export function fingerprintHolds(stat: StoreStat, now: StoreFingerprint): boolean {
  const recorded = stat.fingerprint;
  if (recorded.files.size !== now.files.size) return false;
  const racyFrom = recorded.takenNs - RACY_NS < stat.writtenNs ? recorded.takenNs - RACY_NS : stat.writtenNs;
  for (const [rel, entry] of recorded.files) {
    const current = now.files.get(rel);
    if (!current || !sameStat(entry, current) || isRacy(entry, racyFrom)) return false;
  }
  return true;
}

export async function readStoreStat(file: string): Promise<StoreStat | null> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const [info, bytes] = await Promise.all([handle.stat({ bigint: true }), handle.readFile('utf8')]);
      return parseStoreStat(bytes, info.mtimeNs);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

const DIGITS = /^-?\d{1,30}$/;

export function parseStoreStat(text: string, writtenNs: bigint): StoreStat | null {
  try {
    const doc = JSON.parse(text) as Record<string, unknown>;
    if (doc.version !== VERSION || typeof doc.agent_id !== 'string' || typeof doc.agent_name !== 'string' || typeof doc.base !== 'string') return null;
    if (!Number.isSafeInteger(doc.sequence) || typeof doc.taken_ns !== 'string' || !DIGITS.test(doc.taken_ns) || !Array.isArray(doc.files)) return null;
    const files = new Map<string, FileStat>();
    for (const item of doc.files as unknown[]) {
      if (!Array.isArray(item) || item.length !== 5 || typeof item[0] !== 'string' || files.has(item[0])) return null;
      const [rel, ...numbers] = item as [string, ...unknown[]];
      if (!numbers.every((n) => typeof n === 'string' && DIGITS.test(n))) return null;
      const [ino, size, mtimeNs, ctimeNs] = (numbers as string[]).map(BigInt) as [bigint, bigint, bigint, bigint];
      files.set(rel, { ino, size, mtimeNs, ctimeNs });
    }
    return { agentId: doc.agent_id, agentName: doc.agent_name, sequence: doc.sequence as number, base: doc.base, fingerprint: { takenNs: BigInt(doc.taken_ns), files }, writtenNs };
  } catch {
    return null;
  }
}

export function encodeStoreStat(stat: Omit<StoreStat, 'writtenNs'>): Buffer {
  const files = [...stat.fingerprint.files].map(([rel, s]) => [rel, String(s.ino), String(s.size), String(s.mtimeNs), String(s.ctimeNs)]);
  return Buffer.from(`${JSON.stringify({ version: VERSION, agent_id: stat.agentId, agent_name: stat.agentName, sequence: stat.sequence, base: stat.base, taken_ns: String(stat.fingerprint.takenNs), files })}\n`);
}

/**
 * Records `fingerprint` as what the export of a sync that left the state at `sequence` saw. Written
 * after the base it names and before the TOML: the upload was accepted at that sequence, so a
 * record newer than the TOML, naming the base there, finishes a killed write (finishFromStoreStat).
 */
export async function writeStoreStat(alfHome: string, key: StoreKey, stat: Omit<StoreStat, 'writtenNs' | 'base'>, snapshotPath: string): Promise<void> {
  const base = await baseIdentity(snapshotPath);
  if (!base) return;
  await writeFileAtomic(storeStatPath(alfHome, key), encodeStoreStat({ ...stat, base }), { durable: false });
}

/**
 * A sync killed after writing its base and store stat, before the TOML that points at them: the
 * record names that base and the sequence its upload was accepted at. The TOML is written now.
 */
export async function finishFromStoreStat(alfHome: string, recorded: StoreStat): Promise<boolean> {
  const state = await readClientState(alfHome, recorded.agentId).catch(() => null);
  if (!state || state.last_synced_sequence === undefined || state.last_synced_sequence >= recorded.sequence) return false;
  if ((await baseIdentity(statePaths(alfHome, recorded.agentId).snapshot)) !== recorded.base) return false;
  await writeStateToml(alfHome, { ...state, last_synced_sequence: recorded.sequence });
  return true;
}

/**
 * The sync of a store whose fingerprint `recorded` still holds: idle at its sequence, without the
 * export — when the client state is still at that sequence and base (not moved by a restore, a
 * rebase or another sync; `state`: the client state as the caller read it). Null when it cannot
 * tell: the caller exports.
 */
export async function idleFromStoreStat(opts: SyncOptions, recorded: StoreStat, state: ClientState | null, now: Date, log: (line: string) => void): Promise<SyncOutput | null> {
  const paths = statePaths(opts.alfHome, recorded.agentId);
  const base = await baseIdentity(paths.snapshot);
  if (state?.last_synced_sequence !== recorded.sequence || base !== recorded.base) return null;
  log(`no changes since sequence ${recorded.sequence} (the store's files are as the last sync saw them)`);
  if ((await readSyncedFrom(opts.workspace, recorded.agentId))?.sequence !== recorded.sequence) {
    await writeSyncedFrom(opts.workspace, { agent_id: recorded.agentId, sequence: recorded.sequence, synced_at: now.toISOString() });
  }
  return {
    ok: true, sequence: recorded.sequence, delta: false, snapshot_path: paths.snapshot, no_changes: true, recovered: false,
    agent: { runtime_agent: opts.runtimeAgent ?? recorded.agentName, alf_agent_id: recorded.agentId, source: opts.runtimeAgent ? 'flag' : 'workspace' },
  };
}
