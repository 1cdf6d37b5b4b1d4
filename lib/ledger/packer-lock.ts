/**
 * One blob packer per data directory at a time: `<data>/blob-packer.lock` holds the holder's pid
 * and a token. It is created with its content in one step (a temporary file hard-linked into
 * place, which fails if the lock exists), so no reader ever sees it empty. A lock whose pid is
 * gone — the packer was killed — is stale and broken; so is one whose holder stopped refreshing
 * its time (a pid reused by some other process after a crash). Breaking takes a second, short
 * guard file, so that two processes that both saw the stale lock cannot remove a lock one of
 * them has just taken. The pass is safe beside a second packer all the same (pack-intents.ts):
 * the lock saves the work being done twice.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '@/lib/core/process-alive';

const LOCK_FILE = 'blob-packer.lock';
/** The holder refreshes the lock's time this often, */
const HEARTBEAT_MS = 30_000;
/** and a lock not refreshed for this long is stale even if its pid exists. */
const STALE_MS = 10 * 60_000;

export interface PackerLock {
  /** Aborted when the lock turns out to be someone else's (broken as stale meanwhile): stop. */
  readonly signal: AbortSignal;
  release(): void;
}

export function packerLockFile(dataDir: string): string {
  return path.join(dataDir, LOCK_FILE);
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The pid of a live lock holder of `file`'s kind (`{"pid": …}` content), or null when the file is absent or stale. */
function liveHolder(file: string): number | null {
  const text = readText(file);
  if (text === null) return null;
  let pid: unknown;
  try {
    pid = (JSON.parse(text) as { pid?: unknown }).pid;
  } catch {
    return null; // unwritten: only a machine crash leaves that (the content is linked in whole)
  }
  if (typeof pid !== 'number' || !processAlive(pid)) return null;
  const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return age > STALE_MS ? null : pid;
}

/** The pid of the packer that holds the data directory's lock, or null when none does. */
export function livePacker(dataDir: string): number | null {
  return liveHolder(packerLockFile(dataDir));
}

/** Creates `file` holding `content` unless it exists (link fails then): true when created. */
function createWith(file: string, content: string): boolean {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temp, content);
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** Takes the data directory's packer lock, or returns null when a live packer holds it. */
export function acquirePackerLock(dataDir: string): PackerLock | null {
  const file = packerLockFile(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    const content = JSON.stringify({ pid: process.pid, token: randomBytes(8).toString('hex'), since: new Date().toISOString() });
    if (createWith(file, content)) return held(file, content);
    const seen = readText(file);
    if (seen === null) continue; // released meanwhile
    if (liveHolder(file) !== null || !breakStale(file, seen)) return null;
  }
  return null;
}

/**
 * Removes the stale lock `file` if it still holds `stale` (what the caller found there); false when
 * another process is breaking it. Exported for its test.
 */
export function breakStale(file: string, stale: string): boolean {
  const guard = `${file}.break`;
  const mine = JSON.stringify({ pid: process.pid });
  if (!createWith(guard, mine)) {
    // A breaker that died within its few system calls left its guard.
    if (liveHolder(guard) === null && readText(guard) !== null) fs.rmSync(guard, { force: true });
    return false;
  }
  try {
    // Not a lock taken since the caller looked: only the very content found stale goes.
    if (readText(file) === stale) fs.rmSync(file, { force: true });
    return true;
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

function held(file: string, content: string): PackerLock {
  const controller = new AbortController();
  const heartbeat = setInterval(() => {
    if (readText(file) !== content) {
      controller.abort();
      return;
    }
    const now = new Date();
    fs.utimesSync(file, now, now);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    signal: controller.signal,
    release: () => {
      clearInterval(heartbeat);
      if (readText(file) === content) fs.rmSync(file, { force: true });
    },
  };
}
