/**
 * Real storage conditions for tests, when the test runs as root and may mount: a tiny tmpfs (a disk
 * that fills) and a read-only bind mount. Each returns its undo, or null when mounting is not
 * possible here (the caller then falls back, and says so).
 */
import { execFileSync } from 'node:child_process';

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
