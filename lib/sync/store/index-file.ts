/**
 * The index of the client-state store (`{agent}-state.idx`): git's index for a sync. Per workspace
 * file of the last sync: its stat data (inode, size, mtime and ctime in nanoseconds), its
 * file-keys digest, where its bytes and its record table sit in the log; and a header naming the
 * sequence this state is at, the log generation and length it describes, and the summary the next
 * base is written from (agent name, manifest time, layers). Rewritten whole (temporary name,
 * flushed, renamed) by every sync that uploads: its size is a file's fixed-size entry and path per
 * file, not per record.
 *
 * Files come in the order of the last export's records (the record-bearing files, sorted as their
 * records are), then the others: that order, a record's partition and its place in its file are
 * the base's record order, which a sync that reconciles only some files needs.
 *
 * Format `lineage-state 2` (this module writes it; `lineage-state 1`, the text format the clients
 * before wrote, is still read: index-v1.ts). Every sync reads and writes every entry, so the
 * entries are columns a typed array reads in place, not text to parse (the text format's parse was
 * a tenth of a steady sync's CPU at 1,273 files):
 * - the header line and the summary line (index-common.ts);
 * - the paths, a JSON array of strings on one line;
 * - zero bytes up to a multiple of 8 from the file's start, then per file, column after column:
 *   inode and size (2 × u64), mtime and ctime ns (2 × i64), raw off, raw len, table off, table len
 *   and lines bytes (5 × f64, whole numbers), a flags byte (the kind's place in `sunr`, + 4 when
 *   there is a digest), the digest (32 bytes, zero when none). Little-endian.
 * The file ends there: any other length is a damaged index.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { nodeCrypto } from '@/lib/core/builtin';
import type { FileStat } from '@/lib/adapters/types';
import { isRacy, sameStat } from '../stat-cache';
import { writeFileAtomic } from '../state';
import { StoreDamaged } from './errors';
import { checkRefs, headerLine, parseHeader, parseMeta, type FileKind, type IndexFile, type StoreIndex } from './index-common';
import { parseIndexV1 } from './index-v1';

export type { FileKind, IndexFile, Ref, StoreIndex, StoreMeta } from './index-common';

const VERSION = 2;
const KINDS: readonly FileKind[] = ['s', 'u', 'n', 'r'];
const KIND_FLAG: Record<FileKind, number> = { s: 0, u: 1, n: 2, r: 3 };
const HAS_DIGEST = 4;
const NO_DIGEST = '0'.repeat(64);
/** Bytes per file in the binary part: 2 u64, 2 i64, 5 f64, flags, digest. */
const ENTRY_BYTES = 16 + 16 + 40 + 1 + 32;
const LITTLE_ENDIAN = os.endianness() === 'LE';

/** The columns of `n` files over `bin` (8-byte aligned, `n * ENTRY_BYTES` long). */
function columns(bin: Buffer, n: number) {
  const { buffer, byteOffset: at } = bin;
  return {
    ids: new BigUint64Array(buffer, at, 2 * n),
    times: new BigInt64Array(buffer, at + 16 * n, 2 * n),
    nums: new Float64Array(buffer, at + 32 * n, 5 * n),
    flags: bin.subarray(72 * n, 73 * n),
    digestsAt: 73 * n,
  };
}

/** The index's bytes (`lineage-state 2`). */
export function encodeIndex(index: StoreIndex): Buffer {
  const { files } = index;
  const n = files.length;
  const text = Buffer.from(`${headerLine(VERSION, index)}\n${JSON.stringify(index.meta)}\n${JSON.stringify(files.map((f) => f.rel))}\n`, 'utf8');
  const start = Math.ceil(text.length / 8) * 8;
  const out = Buffer.alloc(start + n * ENTRY_BYTES);
  text.copy(out, 0);
  // Buffer.alloc of this size has a buffer of its own (byteOffset 0): the columns are aligned.
  const bin = out.subarray(start);
  const { ids, times, nums, flags, digestsAt } = columns(bin, n);
  const digests: string[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const f = files[k]!;
    ids[2 * k] = f.stat.ino;
    ids[2 * k + 1] = f.stat.size;
    times[2 * k] = f.stat.mtimeNs;
    times[2 * k + 1] = f.stat.ctimeNs;
    nums[5 * k] = f.raw.off;
    nums[5 * k + 1] = f.raw.len;
    nums[5 * k + 2] = f.table?.off ?? 0;
    nums[5 * k + 3] = f.table?.len ?? 0;
    nums[5 * k + 4] = f.linesBytes;
    flags[k] = KIND_FLAG[f.kind] + (f.digest === null ? 0 : HAS_DIGEST);
    digests[k] = f.digest ?? NO_DIGEST;
  }
  // One hex decode for all the digests (a write per file cost more than the rest of the entry); it
  // stops at the first pair that is not hex, so a digest of anything but 64 hex digits shows.
  if (bin.write(digests.join(''), digestsAt, 32 * n, 'hex') !== 32 * n || digests.some((d) => d.length !== 64)) {
    throw new Error('store index: a digest is not 64 hex digits');
  }
  if (!LITTLE_ENDIAN) bin.subarray(0, 72 * n).swap64();
  return out;
}

/** The index in `bytes` (either format); StoreDamaged unless it is exactly as written and its refs fit its log. */
export function parseIndex(bytes: Buffer): StoreIndex {
  if (bytes.subarray(0, 16).toString('latin1') === 'lineage-state 1 ') return parseIndexV1(bytes);
  const ends: number[] = [];
  for (let at = 0; ends.length < 3; at = ends.at(-1)! + 1) {
    const end = bytes.indexOf(10, at);
    if (end < 0) throw new StoreDamaged('store index: torn');
    ends.push(end);
  }
  const [headEnd, metaEnd, pathsEnd] = ends as [number, number, number];
  const { count: n, ...head } = parseHeader(bytes.toString('utf8', 0, headEnd), VERSION);
  const meta = parseMeta(bytes.toString('utf8', headEnd + 1, metaEnd));
  const rels = parsePaths(bytes.toString('utf8', metaEnd + 1, pathsEnd), n);
  const start = Math.ceil((pathsEnd + 1) / 8) * 8;
  if (bytes.length !== start + n * ENTRY_BYTES || bytes.subarray(pathsEnd + 1, start).some((b) => b !== 0)) throw new StoreDamaged('store index: torn or padded');
  let bin = bytes.subarray(start);
  if (bin.byteOffset % 8 !== 0 || !LITTLE_ENDIAN) {
    // A small file read into Node's shared pool, or a big-endian machine: the columns copied out.
    bin = Buffer.from(new Uint8Array(bin));
    if (!LITTLE_ENDIAN) bin.subarray(0, 72 * n).swap64();
  }
  const { ids, times, nums, flags, digestsAt } = columns(bin, n);
  for (let j = 0; j < 5 * n; j++) {
    const v = nums[j]!;
    if (!Number.isSafeInteger(v) || v < 0) throw new StoreDamaged('store index: unreadable file entry');
  }
  // One hex encode for all the digests; each entry's is a slice of it.
  const digests = bin.toString('hex', digestsAt, digestsAt + 32 * n);
  const files: IndexFile[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const flag = flags[k]!;
    if (flag > 7) throw new StoreDamaged('store index: unreadable file entry');
    const kind = KINDS[flag & 3]!;
    const records = kind === 's' || kind === 'u';
    const file: IndexFile = {
      rel: rels[k]!, kind, raw: { off: nums[5 * k]!, len: nums[5 * k + 1]! },
      table: records ? { off: nums[5 * k + 2]!, len: nums[5 * k + 3]! } : null,
      linesBytes: nums[5 * k + 4]!,
      stat: { ino: ids[2 * k]!, size: ids[2 * k + 1]!, mtimeNs: times[2 * k]!, ctimeNs: times[2 * k + 1]! },
      digest: flag & HAS_DIGEST ? digests.slice(64 * k, 64 * k + 64) : null,
    };
    checkRefs(file, head.logLength);
    files[k] = file;
  }
  return { ...head, meta, files };
}

function parsePaths(line: string, n: number): string[] {
  let rels: unknown;
  try {
    rels = JSON.parse(line);
  } catch {
    throw new StoreDamaged('store index: unreadable paths');
  }
  if (!Array.isArray(rels) || rels.length !== n || rels.some((rel) => typeof rel !== 'string') || new Set(rels).size !== n) {
    throw new StoreDamaged('store index: bad or repeated path');
  }
  return rels as string[];
}

/**
 * The index, its file's mtime (ns: entries not older than it are racy) and the sha256 of its bytes
 * (what names this very state: keys-ahead.ts; hashed when first asked for, since only keying ahead
 * needs it and an idle sync should not pay for it), or null when there is none.
 */
export async function readIndex(file: string): Promise<ReadIndex | null> {
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
    const bytes = readFileSync(fd);
    const index = parseIndex(bytes);
    const statTime = index.meta.stat_time_ns;
    let digest: string | undefined;
    return {
      index,
      writtenNs: statTime !== undefined && /^\d{1,30}$/.test(statTime) ? BigInt(statTime) : info.mtimeNs,
      digest: () => (digest ??= nodeCrypto().createHash('sha256').update(bytes).digest('hex')),
    };
  } finally {
    closeSync(fd);
  }
}

/** What `readIndex` read. */
export interface ReadIndex {
  index: StoreIndex;
  writtenNs: bigint;
  /** The sha256 of the index file's bytes (hex). */
  digest: () => string;
}

/** Written durably (temporary name, flushed, renamed): it is what says which state is there. */
export async function writeIndex(file: string, index: StoreIndex): Promise<void> {
  await writeFileAtomic(file, encodeIndex(index));
}

/**
 * The stat-cache view of an index (git's racy rule: an entry whose ctime is not older than the
 * index file is never trusted; nor is a file of kind `r`).
 */
export function lookupStat(files: ReadonlyMap<string, IndexFile>, writtenNs: bigint, rel: string, stat: FileStat): IndexFile | null {
  const entry = files.get(rel);
  if (!entry || entry.kind === 'r' || !sameStat(entry.stat, stat) || isRacy(entry.stat, writtenNs)) return null;
  return entry;
}
