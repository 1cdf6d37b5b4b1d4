/**
 * Writing the client-state store: the blocks a sync adds to the log (the bytes of files that
 * changed, the lines of records that changed, the record tables of files it reconciled), then the
 * index that names them. An incremental write appends to the current log; a fresh one (a first
 * sync, a base read from a `.alf`, or compaction once the log holds more dead than live bytes)
 * writes a new generation holding only what is live.
 *
 * Crash safety: the log is flushed before the index is renamed into place, and the index names
 * the log length it describes; a kill before the rename leaves the old index, which names none of
 * what was appended (the next write cuts it off), and the old generation's log (removed only once
 * an index names the new one).
 */
import { readFile, rm } from 'node:fs/promises';
import type { FileStat } from '@/lib/adapters/types';
import type { MemoryRecord } from '@/lib/core/record';
import { crashPoint } from '../crash-points';
import { writeIndex, type FileKind, type IndexFile, type Ref, type StoreIndex, type StoreMeta } from './index-file';
import { LogAppender } from './log';
import { storePaths } from './paths';
import { encodeTable, parseTable, type TableRow, type TableView } from './table';

/** Bytes already in the current log (a ref), or bytes to write. */
export type Source = Ref | Uint8Array;

export interface NextRow extends Omit<TableRow, 'line'> {
  line: Source;
  /** The record whose `recordJson` `line` is, when the line was made of it now (a row not early): its stability try takes it as the line's record. */
  record?: MemoryRecord;
}

/**
 * A file of the next state. Record-bearing files (kinds s and u) have `rows`, or keep the table
 * they have in the current log (`table`: a file the sync did not reconcile). A row given as a
 * number is row k of `carriedFrom` (the file's table in the current log) carried over as it is.
 */
export interface NextFile {
  rel: string;
  stat: FileStat;
  digest: string | null;
  kind: FileKind;
  raw: Source;
  rows: readonly (NextRow | number)[] | null;
  carriedFrom?: TableView;
  /** The bytes of the lines of every row of `carriedFrom` (its file's `linesBytes` in the current index). */
  carriedLinesBytes?: number;
  table?: { ref: Ref; linesBytes: number };
}

export interface NextState {
  context: string;
  meta: StoreMeta;
  /** Record-bearing files in the order of the export's records, then the others. */
  files: readonly NextFile[];
  /** The identity of a `{agent}-snapshot.alf` that holds this very state (kept beside it), if any. */
  alf?: string | null;
}

/**
 * Compaction starts once the log would hold more dead bytes than live ones, and at least 1 MiB of
 * them: a sync then and again rewrites the state whole, never more than about once per write of
 * its own size. `LINEAGE_STORE_COMPACT_BYTES=N` compacts instead once more than N bytes are dead
 * (the crash tests compact whenever any are, with 0).
 */
export function compacts(dead: number, live: number): boolean {
  const set = Number(process.env.LINEAGE_STORE_COMPACT_BYTES ?? NaN);
  return Number.isInteger(set) && set >= 0 ? dead > set : dead > live && dead > 1 << 20;
}

/**
 * Where a sync's compaction runs: `background` (the default) — the sync appends, and once its state
 * is committed a detached `lineage state compact` writes the new generation (compact.ts), holding
 * the agent's lock, so that the sync whose append crossed the bound does not pay for rewriting the
 * whole state; `sync` — inside the sync, as its own write (`LINEAGE_STORE_COMPACT=sync`; also the
 * default when `LINEAGE_STORE_COMPACT_BYTES` is set, so that the crash tests compact at their kill
 * points).
 */
export function compactionMode(): 'sync' | 'background' {
  const set = process.env.LINEAGE_STORE_COMPACT;
  if (set === 'sync' || set === 'background') return set;
  return process.env.LINEAGE_STORE_COMPACT_BYTES === undefined ? 'background' : 'sync';
}

/**
 * Dead bytes past this many times the live ones: a sync compacts itself even when compaction is
 * left to the background (which has not run: syncs back to back, or no process could be started).
 */
const BACKGROUND_SLACK = 3;

/** A next state whose log is written and flushed, and that no index names yet. */
export interface PreparedState {
  /** An append that leaves the log due for compaction, which is left to the background (compactionMode). */
  readonly compactionDue: boolean;
  /** Renames the index that names it (at `sequence`) over the current one. */
  commit(sequence: number): Promise<StoreIndex>;
  /** Removes the log of a new generation it wrote (an upload refused); an append to the current log is cut off by the next one. */
  discard(): Promise<void>;
}

/**
 * The next state over `current` (null: none, or not to build on), its first half: the log blocks of
 * `next` laid out and written (and flushed); `commit` renames the index that names them over the
 * current one, and nothing of `current` changes before that. Safe to run
 * before the sequence is known — an upload still in flight — since no index names them: a kill
 * leaves `current` as it was (an append beyond its length is cut off by the next write; a new
 * generation's log is removed once an index names another, `removeStale`).
 */
export async function prepareState(args: {
  stateDir: string; agentId: string; current: StoreIndex | null; next: NextState; fresh?: boolean;
  /** `now`: a new generation whatever the log holds (`lineage state compact`); else as compactionMode says. */
  compact?: 'now' | 'sync' | 'background';
}): Promise<PreparedState> {
  const paths = storePaths(args.stateDir, args.agentId);
  const { current, next } = args;
  const fresh = args.fresh === true || current === null;
  let layout = fresh ? null : lay(next, new LogAppender(current.logLength), null);
  let compactionDue = false;
  if (layout) {
    const dead = layout.appender.length - layout.live;
    const mode = args.compact ?? compactionMode();
    compactionDue = compacts(dead, layout.live);
    if (mode === 'now' || (compactionDue && (mode === 'sync' || dead > BACKGROUND_SLACK * layout.live))) {
      layout = null;
      compactionDue = false;
    }
  }
  if (!layout) {
    // Refs into the current log are copied out of it (read once, whole); a fresh state has none.
    const old = fresh ? null : await readFile(paths.log(current.generation));
    layout = lay(next, new LogAppender(0), old);
  }
  const laid = layout;
  const generation = laid.appender.start === 0 ? (current?.generation ?? 0) + 1 : current!.generation;
  await laid.appender.writeTo(paths.log(generation));
  crashPoint('log-written');
  return {
    compactionDue,
    async commit(sequence) {
      const index: StoreIndex = {
        sequence, generation, logLength: laid.appender.length, liveBytes: laid.live, alf: next.alf ?? null,
        context: next.context, meta: next.meta, files: laid.files,
      };
      await writeIndex(paths.index, index);
      return index;
    },
    async discard() {
      if (generation !== current?.generation) await rm(paths.log(generation), { force: true });
    },
  };
}

/** The log blocks and index lines of `next`: sources that are refs stay (`old` null) or are copied from `old`. */
function lay(next: NextState, appender: LogAppender, old: Buffer | null): { appender: LogAppender; files: IndexFile[]; live: number } {
  const bytesOf = (source: Source): Uint8Array => (isRef(source) ? old!.subarray(source.off, source.off + source.len) : source);
  const place = (source: Source): Ref => (isRef(source) && !old ? source : appender.append(bytesOf(source)));
  const files: IndexFile[] = [];
  let live = 0;
  for (const file of next.files) {
    const raw = place(file.raw);
    let table: Ref | null = null;
    let linesBytes = 0;
    if (file.table && !old) {
      ({ ref: table, linesBytes } = file.table);
    } else if (file.rows && file.carriedFrom && file.carriedLinesBytes !== undefined && !old) {
      ({ table, linesBytes } = carriedTable(file.rows, file.carriedFrom, file.carriedLinesBytes, appender));
    } else if (file.rows || file.table) {
      // A kept table copied into a new generation: its rows, lines copied with them.
      const given = file.rows ? file.rows.map((row) => (typeof row === 'number' ? file.carriedFrom!.row(row) : row))
        : parseTable(Buffer.from(bytesOf(file.table!.ref)), `client state table of ${file.rel}`);
      const rows = placeLines(given, appender, old, bytesOf);
      for (const row of rows) linesBytes += row.line.len;
      table = appender.append(encodeTable(rows));
    }
    live += raw.len + (table?.len ?? 0) + linesBytes;
    files.push({ rel: file.rel, stat: file.stat, digest: file.digest, kind: file.kind, raw, table, linesBytes });
  }
  return { appender, files, live };
}

/**
 * A table whose carried rows (numbers: rows of `from`, the file's table in the current log) are
 * their bytes as they are there — their lines stay where they are — and whose other rows are
 * placed and encoded as usual; the runs of each kind in the file's order. Its lines' bytes: those
 * of `from`'s rows (`fromLinesBytes`) less those of the rows not carried (a few: a changed file's
 * changed sections), plus those placed — not the carried rows' lengths read one by one.
 */
function carriedTable(rows: readonly (NextRow | number)[], from: TableView, fromLinesBytes: number, appender: LogAppender): { table: Ref; linesBytes: number } {
  const given = rows.filter((row): row is NextRow => typeof row !== 'number');
  const placed = placeLines(given, appender, null, (source) => source as Uint8Array);
  const carried = new Uint8Array(from.length);
  // The table's bytes, run by run: a carried run is the old table's bytes as they are, not decoded
  // and encoded again (the view is of an ASCII table: its text's UTF-8 is those bytes).
  const pieces: Buffer[] = [];
  let linesBytes = fromLinesBytes;
  let next = 0;
  for (let i = 0; i < rows.length; ) {
    const row = rows[i]!;
    if (typeof row === 'number') {
      // A run of rows that follow each other in the table is one slice of it.
      let end = i + 1;
      while (end < rows.length && rows[end] === (rows[end - 1] as number) + 1) end++;
      pieces.push(from.rowBytes(row, row + (end - i)));
      carried.fill(1, row, row + (end - i));
      i = end;
    } else {
      let end = i + 1;
      while (end < rows.length && typeof rows[end] !== 'number') end++;
      const run = placed.slice(next, next + (end - i));
      next += end - i;
      for (const r of run) linesBytes += r.line.len;
      pieces.push(encodeTable(run));
      i = end;
    }
  }
  for (let k = 0; k < carried.length; k++) if (carried[k] === 0) linesBytes -= from.lineLen(k);
  return { table: appender.append(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)), linesBytes };
}

/**
 * The rows with every line in the log: lines to write (and, when copying, every line) go in one
 * block per file, each followed by a newline, so that a file's lines that follow each other in a
 * partition are one range of the log. Lines that follow each other, newline between, in one large
 * buffer (a snapshot's partition lines, a base's JSONL) are appended as that buffer's slice, not
 * copied: the block's bytes are the same.
 */
function placeLines(rows: readonly NextRow[], appender: LogAppender, old: Buffer | null, bytesOf: (s: Source) => Uint8Array): TableRow[] {
  const pieces = new Pieces();
  const at: number[] = [];
  let size = 0;
  rows.forEach((row, k) => {
    if (isRef(row.line) && !old) return;
    const bytes = bytesOf(row.line);
    at[k] = size;
    size += bytes.byteLength + 1;
    pieces.add(bytes);
  });
  const blockStart = appender.length;
  for (const piece of pieces.done()) appender.append(piece);
  return rows.map((row, k) => {
    const start = at[k];
    const line = start === undefined ? (row.line as Ref) : { off: blockStart + start, len: bytesOf(row.line).byteLength };
    return { key: row.key, early: row.early, partition: row.partition, id: row.id, line };
  });
}

/**
 * Buffers at least this large are never Buffer's shared pool (8 KiB), whose neighbouring bytes may
 * belong to another Buffer: a line in one is followed by bytes of its own source.
 */
const RUN_BUFFER_BYTES = 64 * 1024;

/**
 * Lines, each followed by a newline, as the pieces to append: a run of lines that follow each
 * other, newline after each, in one large buffer is that buffer's slice; the others are copied,
 * each run of them into one buffer.
 */
class Pieces {
  private readonly out: Uint8Array[] = [];
  private copied: Uint8Array[] = [];
  private copiedSize = 0;
  private run: { buffer: ArrayBufferLike; start: number; end: number } | null = null;
  private whole: Uint8Array | null = null;

  add(bytes: Uint8Array): void {
    const start = bytes.byteOffset;
    const end = start + bytes.byteLength;
    if (this.newlineAt(bytes.buffer, end)) {
      this.endCopied();
      if (this.run && this.run.buffer === bytes.buffer && this.run.end === start) {
        this.run.end = end + 1;
      } else {
        this.endRun();
        this.run = { buffer: bytes.buffer, start, end: end + 1 };
      }
      return;
    }
    this.endRun();
    this.copied.push(bytes);
    this.copiedSize += bytes.byteLength + 1;
  }

  done(): Uint8Array[] {
    this.endRun();
    this.endCopied();
    return this.out;
  }

  /** Whether `buffer` is large and holds a newline at `end`. */
  private newlineAt(buffer: ArrayBufferLike, end: number): boolean {
    if (buffer.byteLength < RUN_BUFFER_BYTES || end >= buffer.byteLength) return false;
    if (this.whole?.buffer !== buffer) this.whole = new Uint8Array(buffer);
    return this.whole[end] === 0x0a;
  }

  private endRun(): void {
    if (!this.run) return;
    this.out.push(new Uint8Array(this.run.buffer, this.run.start, this.run.end - this.run.start));
    this.run = null;
  }

  private endCopied(): void {
    if (this.copied.length === 0) return;
    const buffer = Buffer.allocUnsafe(this.copiedSize);
    let offset = 0;
    for (const bytes of this.copied) {
      buffer.set(bytes, offset);
      offset += bytes.byteLength;
      buffer[offset++] = 0x0a;
    }
    this.out.push(buffer);
    this.copied = [];
    this.copiedSize = 0;
  }
}

function isRef(source: Source): source is Ref {
  return !(source instanceof Uint8Array);
}

