/**
 * Packing off the sync's path, the way `git commit` runs `git gc --auto`: a sync that completes a
 * packing group records a request (`<data>/blob-packer.request`) and starts a detached, low-priority
 * `lineage pack-blobs` process (run-packer.ts) unless a live one holds the lock; the sync returns
 * at once. The packer takes the request (renamed to `….taken`) before it lists the blobs, and
 * removes it only after a whole pass, so a request is served by a pass that began after it, and a
 * packer killed mid-pass leaves `….taken` behind for the next start to finish. A request made while
 * a packer lets go of its lock is picked up by that packer (it looks again once released).
 * Loads nothing but Node's own modules: a `lineage sync` pays for the spawn alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';
import { livePacker } from './packer-lock';

const REQUEST_FILE = 'blob-packer.request';
const TAKEN_SUFFIX = '.taken';

const requestFile = (dataDir: string) => path.join(dataDir, REQUEST_FILE);

/** Whether blob packing is on at all (`LINEAGE_BLOB_PACKING=0` stores every blob whole). */
export function packingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LINEAGE_BLOB_PACKING !== '0';
}

/** Asks for a packing pass over the data directory's complete groups. */
export function requestPacking(dataDir: string): void {
  fs.writeFileSync(requestFile(dataDir), '');
}

/** A pass was asked for and not finished (requested, or taken by a packer that may have died). */
export function packingPending(dataDir: string): boolean {
  return fs.existsSync(requestFile(dataDir)) || fs.existsSync(requestFile(dataDir) + TAKEN_SUFFIX);
}

/** The packer takes the pending request, if any (or finds one a killed packer took): true when a pass is due. */
export function takeRequest(dataDir: string): boolean {
  try {
    fs.renameSync(requestFile(dataDir), requestFile(dataDir) + TAKEN_SUFFIX);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return fs.existsSync(requestFile(dataDir) + TAKEN_SUFFIX);
}

/** A whole pass ran after the taken request: it is served. */
export function finishRequest(dataDir: string): void {
  fs.rmSync(requestFile(dataDir) + TAKEN_SUFFIX, { force: true });
}

/**
 * Starts the background packer when a pass is pending and no live packer holds the lock. The
 * child is detached (its own session: a terminal's signals do not reach it), its stdio ignored,
 * `unref`'d (this process exits without waiting), run from `/` (it keeps no directory busy).
 */
export function startBackgroundPacker(dataDir: string): 'started' | 'running' | 'idle' {
  if (!packingEnabled() || !packingPending(dataDir)) return 'idle';
  if (livePacker(dataDir) !== null) return 'running';
  const child = spawn(process.execPath, [path.join(packageRoot(), 'bin', 'lineage.cjs'), 'pack-blobs', '--data', path.resolve(dataDir)], {
    detached: true, stdio: 'ignore', cwd: '/', env: process.env,
  });
  // A spawn that fails leaves the request pending: the next sync, or `lineage serve`, starts one.
  child.on('error', () => undefined);
  child.unref();
  return 'started';
}

/**
 * Waits until no pass is pending and no packer runs (tests and benchmarks that must see the
 * packed files, or must not leave a packer writing into a directory they remove).
 */
export async function waitForPacker(dataDir: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (packingPending(dataDir) || livePacker(dataDir) !== null) {
    if (Date.now() > deadline) throw new Error(`the blob packer of ${dataDir} did not finish within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
