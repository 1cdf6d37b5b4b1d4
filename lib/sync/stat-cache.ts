/**
 * The stat cache: git's index idea for a sync. For each workspace file of the last export, the
 * stat data it had when it was read (inode, size, mtime and ctime in nanoseconds) and, for a
 * record-bearing file, its file-keys digest. At the next export, a file whose stat data are the
 * same is not opened: its bytes are the ones the base carries for it, its keys those of its digest.
 *
 * Racy timestamps (git's rule): a file changed within the clock tick in which the cache was
 * written can keep all its stat data (a coarse filesystem clock). An entry whose mtime or ctime is
 * not older than the cache file's own mtime is therefore never trusted: that file is read again.
 *
 * The cache describes one base: it names that file's identity (inode, size, mtime: the base is
 * only ever replaced by a rename), and is used only while the base file is that one (else the
 * export runs again reading every file). Anything unreadable is ignored. An idle sync does not
 * rewrite it. When every file is found unchanged and no file came or went, the export is the
 * base's own: the sync is idle without reading the base at all (its summary line gives the agent's
 * name for the output).
 *
 * File: `{agent}-files.stat` in the state directory. A header line `lineage-stat-cache 1 <base
 * ino:size:mtime> <context> <sequence> <count>\n`, a summary line (JSON: `{agent_name, workspace}`) (context: the adapter's, ExportOptions.unchanged; sequence: the
 * one the base is at, so a kill between the base and the TOML that points at it is finished), then one line per file: `<ino> <size> <mtime ns> <ctime ns> <digest or -> <path
 * as a JSON string>\n`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileStat, StatEntry } from '@/lib/adapters/types';
import { writeFileAtomic } from './state';

const MAGIC = 'lineage-stat-cache 1';
const LINE = /^(\d+) (\d+) (-?\d+) (-?\d+) ([0-9a-f]{64}|-) ("(?:[^"\\]|\\.)*")$/;

export function statCachePath(stateDir: string, agentId: string): string {
  return path.join(stateDir, `${agentId}-files.stat`);
}

/** What the export the cache was made from says beyond its files. */
export interface ExportSummary {
  agent_name: string;
  workspace: string;
}

export class StatCache {
  constructor(
    /** The base file's identity (`baseIdentity`). */
    readonly base: string,
    readonly summary: ExportSummary,
    readonly context: string,
    /** The sequence the base it names is at. */
    readonly sequence: number,
    private readonly entries: ReadonlyMap<string, StatEntry>,
    /** The cache file's mtime (ns): entries not older than it are racy. */
    private readonly writtenNs: bigint,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `rel` when `stat` is exactly what it recorded and is not racy; else null. */
  lookup(rel: string, stat: FileStat): StatEntry | null {
    const entry = this.entries.get(rel);
    if (!entry || !sameStat(entry, stat)) return null;
    return isRacy(entry, this.writtenNs) ? null : entry;
  }
}

export function sameStat(a: FileStat, b: FileStat): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * Git's racy-timestamp rule: a file stat'ed in the tick the cache was written may change unseen.
 * Judged by the ctime, which the kernel sets to its clock at every change (a write, a utimes) and
 * nothing can set otherwise, and which sameStat compares: a change after the cache was written
 * gives a ctime not older than it. An mtime is whatever a writer set (`touch -d`, an unpacked
 * archive, a clock ahead): one set in the future would make its file racy, read at every sync,
 * for as long as it is left alone — with no change it could hide that the ctime would not show.
 */
export function isRacy(entry: FileStat, writtenNs: bigint): boolean {
  return entry.ctimeNs >= writtenNs;
}

/** A base file's identity: it is only ever replaced by a rename (a new inode), never rewritten. */
export async function baseIdentity(file: string): Promise<string | null> {
  const info = await fs.stat(file, { bigint: true }).catch(() => null);
  return info ? `${info.ino}:${info.size}:${info.mtimeNs}` : null;
}

export function encodeStatCache(entries: ReadonlyMap<string, StatEntry>, base: string, context: string, sequence: number, summary: ExportSummary): Buffer {
  const lines = [`${MAGIC} ${base} ${context} ${sequence} ${entries.size}`, JSON.stringify({ agent_name: summary.agent_name, workspace: summary.workspace })];
  for (const [rel, e] of entries) lines.push(`${e.ino} ${e.size} ${e.mtimeNs} ${e.ctimeNs} ${e.digest ?? '-'} ${JSON.stringify(rel)}`);
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

/** The cache in `bytes` (its file written at `writtenNs`); null unless it is exactly as written. */
export function parseStatCache(bytes: Buffer, writtenNs: bigint): StatCache | null {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.pop() !== '') return null;
  const [magic, version, base, context, sequenceText, countText, ...rest] = (lines.shift() ?? '').split(' ');
  if (`${magic} ${version}` !== MAGIC || !/^\d+:\d+:-?\d+$/.test(base ?? '') || !context || !/^\d{1,15}$/.test(sequenceText ?? '')) return null;
  const summary = parseSummary(lines.shift());
  if (!summary || rest.length > 0 || countText !== String(lines.length)) return null;
  const entries = new Map<string, StatEntry>();
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) return null;
    let rel: unknown;
    try {
      rel = JSON.parse(m[6]!);
    } catch {
      return null;
    }
    if (typeof rel !== 'string' || entries.has(rel)) return null;
    entries.set(rel, { ino: BigInt(m[1]!), size: BigInt(m[2]!), mtimeNs: BigInt(m[3]!), ctimeNs: BigInt(m[4]!), digest: m[5] === '-' ? null : m[5]! });
  }
  return new StatCache(base!, summary, context, Number(sequenceText), entries, writtenNs);
}

function parseSummary(line: string | undefined): ExportSummary | null {
  try {
    const doc = JSON.parse(line ?? '') as Partial<ExportSummary>;
    return typeof doc.agent_name === 'string' && typeof doc.workspace === 'string' ? { agent_name: doc.agent_name, workspace: doc.workspace } : null;
  } catch {
    return null;
  }
}

export async function readStatCache(file: string): Promise<StatCache | null> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const [info, bytes] = await Promise.all([handle.stat({ bigint: true }), handle.readFile()]);
      return parseStatCache(bytes, info.mtimeNs);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** Written beside the base it names (temporary name, renamed; not flushed: a torn cache is not read). */
export async function writeStatCache(file: string, entries: ReadonlyMap<string, StatEntry>, base: string, context: string, sequence: number, summary: ExportSummary): Promise<void> {
  await writeFileAtomic(file, encodeStatCache(entries, base, context, sequence, summary), { durable: false });
}
