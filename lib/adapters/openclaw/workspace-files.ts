import { closeSync, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import type { FileStat } from '../types';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** Root prose files the OpenClaw adapter carries raw (CONTRACT §3.3). */
export const ROOT_FILES = [
  'SOUL.md',
  'IDENTITY.md',
  'AGENTS.md',
  'USER.md',
  'TOOLS.md',
  'HEARTBEAT.md',
  'BOOTSTRAP.md',
  'MEMORY.md',
] as const;

export const MEMORY_DIR = 'memory';

/** Absolute path of a forward-slash workspace-relative path. */
export function absPath(workspace: string, relPath: string): string {
  return path.join(workspace, ...relPath.split('/'));
}

/**
 * absPath for the many paths of one workspace: the workspace normalised once, each path appended
 * to it (path.join per file was a tenth of an idle sync's time). For paths made of directory
 * entries' names (a walk's): no empty, `.` or `..` parts, so the result is absPath's.
 */
export function absPathsIn(workspace: string): (relPath: string) => string {
  if (path.sep !== '/') return (relPath) => absPath(workspace, relPath);
  const root = path.join(workspace, '.');
  const prefix = root === '.' ? '' : root.endsWith('/') ? root : `${root}/`;
  return (relPath) => prefix + relPath;
}

/** True when the path exists and is a regular file (following links). */
export async function isFile(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}

/** True when the path exists and is a directory. */
export async function isDir(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isDirectory();
  } catch {
    return false;
  }
}

/** Reads a file's bytes, or null when it is not there. */
export async function readBytesIfFile(abs: string): Promise<Uint8Array | null> {
  return (await isFile(abs)) ? new Uint8Array(await readFile(abs)) : null;
}

/**
 * A file's mtime as RFC 3339 UTC with chrono's `AutoSi` fraction (none, 3, 6 or 9
 * digits), from the nanosecond stat so the value is exactly what the filesystem holds.
 */
/**
 * A file's bytes and RFC 3339 mtime through one descriptor, synchronously: an export reads every
 * file of the workspace, and a thread-pool round trip per open, stat, read and close cost more
 * than the reads themselves on stores of hundreds of files.
 */
export function readWithMtime(abs: string): { bytes: Buffer; mtime: string; stat: FileStat } {
  const fd = openSync(abs, 'r');
  try {
    // Stat'ed before it is read: a change while it is read leaves other stat data than recorded.
    const info = fstatSync(fd, { bigint: true });
    return { bytes: readFileSync(fd), mtime: formatNanos(info.mtimeNs), stat: fileStatOf(info) };
  } finally {
    closeSync(fd);
  }
}

/** A file's stat data (following links), or null when it is not there; the file is not opened. */
export function statFile(abs: string): FileStat | null {
  const info = statSync(abs, { bigint: true, throwIfNoEntry: false });
  return info ? fileStatOf(info) : null;
}

function fileStatOf(info: BigIntStats): FileStat {
  return { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
}

export async function mtimeRfc3339(abs: string): Promise<string> {
  const info = await stat(abs, { bigint: true });
  return formatNanos(info.mtimeNs);
}

export function formatNanos(epochNs: bigint): string {
  const seconds = epochNs / 1_000_000_000n - (epochNs % 1_000_000_000n < 0n ? 1n : 0n);
  const nanos = epochNs - seconds * 1_000_000_000n;
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}${fraction(Number(nanos))}Z`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  if (nanos % 1_000_000 === 0) return `.${String(nanos / 1_000_000).padStart(3, '0')}`;
  if (nanos % 1_000 === 0) return `.${String(nanos / 1_000).padStart(6, '0')}`;
  return `.${String(nanos).padStart(9, '0')}`;
}

/** The newest of several RFC 3339 timestamps (same format, so compare as instants). */
export function newest(timestamps: readonly string[]): string | null {
  let best: string | null = null;
  for (const t of timestamps) if (best === null || instant(t) > instant(best)) best = t;
  return best;
}

function instant(t: string): bigint {
  const ms = BigInt(Date.parse(t));
  const frac = (/\.(\d+)/.exec(t)?.[1] ?? '').padEnd(9, '0').slice(3, 9);
  return ms * 1_000_000n + BigInt(frac);
}
