/**
 * Real storage conditions for tests, when the test runs as root and may mount: a tiny tmpfs (a disk
 * that fills) and a read-only bind mount. Each returns its undo, or null when mounting is not
 * possible here (the caller then falls back, and says so).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function run(args: string[]): boolean {
  try {
    execFileSync('mount', args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Lazy unmount: a test that failed half-way may still hold files open there. */
const umount = (dir: string) => () => {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    // already unmounted
  }
};

/** Mounts a tmpfs of `bytes` on `dir`. */
export function mountTinyDisk(dir: string, bytes: number): (() => void) | null {
  if (process.getuid?.() !== 0) return null;
  return run(['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]) ? umount(dir) : null;
}

/** Gives the tmpfs `mountTinyDisk` mounted on `dir` a new size (space freed, or taken); false when it cannot. */
export function resizeTinyDisk(dir: string, bytes: number): boolean {
  return run(['-o', `remount,size=${bytes}`, dir]);
}

/**
 * Fills the disk holding `dir` (a `mountTinyDisk`) with `dir/filler` but `leftBytes` (0: to the last
 * byte); returns the filler, to remove to free the space.
 */
export function fillDisk(dir: string, leftBytes = 0): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  let size = 0;
  try {
    for (const chunk = Buffer.alloc(64 * 1024, 1); ;) size += fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  }
  try {
    if (leftBytes > 0) fs.ftruncateSync(fd, size - leftBytes);
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** Makes `dir` read-only in place (a read-only bind mount of itself). */
export function mountReadOnly(dir: string): (() => void) | null {
  if (process.getuid?.() !== 0) return null;
  if (!run(['--bind', dir, dir])) return null;
  if (!run(['-o', 'remount,bind,ro', dir])) {
    umount(dir)();
    return null;
  }
  return umount(dir);
}
