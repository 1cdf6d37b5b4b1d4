/**
 * The index of the client-state store (`{agent}-state.idx`): git's index for a sync. One line per
 * workspace file of the last sync — its stat data (inode, size, mtime and ctime in nanoseconds),
 * its file-keys digest, where its bytes and its record table sit in the log — and a header naming
 * the sequence this state is at, the log generation and length it describes, and the summary the
 * next base is written from (agent name, manifest time, layers). Rewritten whole (temporary name,
 * flushed, renamed) by every sync that uploads: its size is a line per file, not per record.
 *
 * Files come in the order of the last export's records (the record-bearing files, sorted as their
 * records are), then the others: that order, a record's partition and its place in its file are
 * the base's record order, which a sync that reconciles only some files needs.
 *
 * Header: `lineage-state 1 <sequence> <generation> <log length> <live bytes> <alf identity or -> <context> <files>`,
 * then a JSON line (StoreMeta), then per file:
 * `<ino> <size> <mtime ns> <ctime ns> <digest or -> <kind> <raw off> <raw len> <table off> <table len> <lines bytes> <path as JSON>`.
 * Kinds: `s` bears records, and a sync of the same file would change nothing (stable); `u` bears
 * records, not known to be stable; `n` bears no records; `r` bears no records although its path
 * would (not UTF-8): its stat data are never trusted, it is read every time.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import type { FileStat } from '@/lib/adapters/types';
import type { JsonObject } from '@/lib/core/json';
import { isRacy, sameStat } from '../stat-cache';
import { writeFileAtomic } from '../state';
import { StoreDamaged } from './errors';
import { jsonString, parseJsonString } from './json-string';

const MAGIC = 'lineage-state 1';
const LINE = /^(\d+) (\d+) (-?\d+) (-?\d+) ([0-9a-f]{64}|-) ([sunr]) (\d{1,15}) (\d{1,15}) (\d{1,15}) (\d{1,15}) (\d{1,15}) ("(?:[^"\\]|\\.)*")$/;

export type FileKind = 's' | 'u' | 'n' | 'r';

export interface Ref {
  off: number;
  len: number;
}

export interface IndexFile {
  rel: string;
  stat: FileStat;
  /** The adapter's file-keys digest of a record-bearing file (null for others). */
  digest: string | null;
  kind: FileKind;
  raw: Ref;
  /** The record table (kinds s and u). */
  table: Ref | null;
  /** The bytes of its records' lines (what compaction would copy). */
  linesBytes: number;
}

/** What the next base is written from besides its records and raw files. */
export interface StoreMeta {
  agent_name: string;
  /** The workspace the stat data were taken in (absolute). */
  workspace: string;
  /** The base manifest's `created_at` (the time of the sync that wrote this state). */
  created_at: string;
  /** The adapter's record-key version the tables and stable kinds were made with. */
  key_version: string;
  layers: Partial<Record<'identity' | 'principals' | 'credentials' | 'attachments', JsonObject>>;
  /** The base keeps its raw files Stored (a sync's own next base), not Deflated (a first sync's base: its upload). */
  store_raw: boolean;
  /**
   * When the index was rewritten after its stat data were taken (`lineage state export` names the
   * `.alf` it wrote): the first write's mtime (ns, decimal), which stays the racy-timestamp bound.
   */
  stat_time_ns?: string;
}

export interface StoreIndex {
  sequence: number;
  generation: number;
  logLength: number;
  liveBytes: number;
  /** The identity of a `{agent}-snapshot.alf` holding this very state, when one is kept. */
  alf: string | null;
  context: string;
  meta: StoreMeta;
  files: IndexFile[];
}

/**
 * The lines parseIndex read, by the files array it made (one entry per index: a WeakMap entry per
 * file cost more than formatting saves): an entry written again unchanged (most of them, at every
 * sync) is written as the line it was read from, not formatted anew.
 */
const linesRead = new WeakMap<readonly IndexFile[], readonly string[]>();

/**
 * The index's bytes. `previous`: the entries of the index it replaces (as parsed): an entry equal
 * to the one of its path there is written as the line that one was read from.
 */
export function encodeIndex(index: StoreIndex, previous?: readonly IndexFile[]): Buffer {
  const { sequence, generation, logLength, liveBytes, alf, context, meta, files } = index;
  if (!/^[\x21-\x7e]+$/.test(context)) throw new Error(`store index: context ${JSON.stringify(context)} is not a token`);
  const lines = [`${MAGIC} ${sequence} ${generation} ${logLength} ${liveBytes} ${alf ?? '-'} ${context} ${files.length}`, JSON.stringify(meta)];
  const own = linesRead.get(files);
  const read = previous && linesRead.get(previous);
  const at = read && new Map(previous!.map((f, k) => [f.rel, k]));
  files.forEach((f, k) => {
    const i = at?.get(f.rel);
    lines.push(own?.[k] ?? (i !== undefined && sameEntry(previous![i]!, f) ? read![i]! : fileLine(f)));
  });
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

function sameEntry(a: IndexFile, b: IndexFile): boolean {
  return a.kind === b.kind && a.digest === b.digest && a.linesBytes === b.linesBytes && sameStat(a.stat, b.stat)
    && a.raw.off === b.raw.off && a.raw.len === b.raw.len && a.table?.off === b.table?.off && a.table?.len === b.table?.len;
}

function fileLine(f: IndexFile): string {
  const { ino, size, mtimeNs, ctimeNs } = f.stat;
  return `${ino} ${size} ${mtimeNs} ${ctimeNs} ${f.digest ?? '-'} ${f.kind} ${f.raw.off} ${f.raw.len} ${f.table?.off ?? 0} ${f.table?.len ?? 0} ${f.linesBytes} ${jsonString(f.rel)}`;
}

/** The index in `bytes`; StoreDamaged unless it is exactly as written and its refs fit its log. */
export function parseIndex(bytes: Buffer): StoreIndex {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.pop() !== '') throw new StoreDamaged('store index: torn');
  const header = (lines.shift() ?? '').split(' ');
  if (`${header[0]} ${header[1]}` !== MAGIC || header.length !== 9) throw new StoreDamaged('store index: not a lineage-state 1 index');
  const [sequence, generation, logLength, liveBytes] = header.slice(2, 6).map((t) => (/^\d{1,15}$/.test(t) ? Number(t) : NaN));
  const alf = header[6]!;
  if ([sequence, generation, logLength, liveBytes].some((n) => Number.isNaN(n)) || !/^(\d+:\d+:-?\d+|-)$/.test(alf) || header[8] !== String(lines.length - 1)) {
    throw new StoreDamaged('store index: unreadable header');
  }
  const meta = parseMeta(lines.shift());
  const files: IndexFile[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) throw new StoreDamaged('store index: unreadable file line');
    const rel = parseJsonString(m[12]!);
    if (rel === undefined || seen.has(rel)) throw new StoreDamaged('store index: bad or repeated path');
    seen.add(rel);
    const kind = m[6] as FileKind;
    const raw = { off: Number(m[7]), len: Number(m[8]) };
    const table = kind === 's' || kind === 'u' ? { off: Number(m[9]), len: Number(m[10]) } : null;
    if (raw.off + raw.len > logLength! || (table && table.off + table.len > logLength!)) throw new StoreDamaged('store index: a ref past the end of its log');
    const file: IndexFile = {
      rel, kind, raw, table, linesBytes: Number(m[11]),
      stat: { ino: BigInt(m[1]!), size: BigInt(m[2]!), mtimeNs: BigInt(m[3]!), ctimeNs: BigInt(m[4]!) },
      digest: m[5] === '-' ? null : m[5]!,
    };
    files.push(file);
  }
  linesRead.set(files, lines);
  return { sequence: sequence!, generation: generation!, logLength: logLength!, liveBytes: liveBytes!, alf: alf === '-' ? null : alf, context: header[7]!, meta, files };
}

function parseMeta(line: string | undefined): StoreMeta {
  let doc: Partial<StoreMeta>;
  try {
    doc = JSON.parse(line ?? '') as Partial<StoreMeta>;
  } catch {
    throw new StoreDamaged('store index: unreadable summary');
  }
  const strings = [doc.agent_name, doc.workspace, doc.created_at, doc.key_version];
  if (strings.some((s) => typeof s !== 'string') || typeof doc.layers !== 'object' || doc.layers === null || typeof doc.store_raw !== 'boolean') throw new StoreDamaged('store index: incomplete summary');
  return doc as StoreMeta;
}

/** The index and its file's mtime (ns: entries not older than it are racy), or null when there is none. */
export async function readIndex(file: string): Promise<{ index: StoreIndex; writtenNs: bigint } | null> {
  // Synchronously (one open, stat, read and close): a sync reads it first thing, with nothing to
  // overlap, and four thread-pool round trips cost more wall time than the read.
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd, { bigint: true });
    const index = parseIndex(readFileSync(fd));
    const statTime = index.meta.stat_time_ns;
    return { index, writtenNs: statTime !== undefined && /^\d{1,30}$/.test(statTime) ? BigInt(statTime) : info.mtimeNs };
  } finally {
    closeSync(fd);
  }
}

/** Written durably (temporary name, flushed, renamed): it is what says which state is there. */
export async function writeIndex(file: string, index: StoreIndex, previous?: readonly IndexFile[]): Promise<void> {
  await writeFileAtomic(file, encodeIndex(index, previous));
}

/**
 * The stat-cache view of an index (git's racy rule: an entry whose mtime or ctime is not older than
 * the index file is never trusted; nor is a file of kind `r`).
 */
export function lookupStat(files: ReadonlyMap<string, IndexFile>, writtenNs: bigint, rel: string, stat: FileStat): IndexFile | null {
  const entry = files.get(rel);
  if (!entry || entry.kind === 'r' || !sameStat(entry.stat, stat) || isRacy(entry.stat, writtenNs)) return null;
  return entry;
}
