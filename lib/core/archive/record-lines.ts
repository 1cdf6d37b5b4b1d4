import type { MemoryRecord } from '../record';
import { lineRecord, parseLineObject } from './read-common';
import { forEachJsonLineRange, type JsonLine } from './json-text';
import { ArchiveError } from './types';

/** The timestamps of a record that decide its partition. */
export interface RecordTimestamps {
  created_at: string;
  observed_at?: string;
}

/**
 * A line's bytes as a range of a larger buffer (cheaper than a view per line, and adjacent
 * ranges of one partition can be copied as one).
 */
export interface LineBytes {
  source: Uint8Array;
  start: number;
  end: number;
}

/**
 * A snapshot's memory records kept as their JSONL lines, parsed only on demand. A sync compares
 * its fresh export with the last-synced base mostly by exact line equality (an unchanged record
 * serializes to the very line the base holds), so the records it never needs are never parsed.
 *
 * Parsing checks exactly what the eager reader checks (JSON, record shape, named by file and
 * line); ids are checked for duplicates by the caller once it knows every line's id
 * ({@link assertUniqueIds}).
 */
export class RecordLines {
  // Per line, as plain number arrays (no object and no string per line): partition, 1-based line
  // number, and byte range in the partition. Text is decoded only for the lines that need it.
  private readonly partitionOf: number[] = [];
  private readonly lineNumber: number[] = [];
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  private readonly partitions: { file: string; bytes: Buffer }[] = [];
  private readonly parsed: (MemoryRecord | undefined)[] = [];
  private scratch = Buffer.allocUnsafe(64 * 1024);
  /** The last temporal object `timestamps` read: where, and what it said. */
  private lastTemporal: { bytes: Buffer; start: number; end: number; timestamps: RecordTimestamps } | null = null;

  /** Lines given as text (tests): each partition is encoded and read like an archive's. */
  constructor(partitions: readonly { file: string; lines: readonly (Pick<JsonLine, 'line' | 'text'>)[] }[] = []) {
    for (const { file, lines } of partitions) {
      const p = this.addPartition(file, Buffer.from(lines.map((l) => `${l.text}\n`).join(''), 'utf8'));
      let at = 0;
      for (const { line, text } of lines) {
        const size = Buffer.byteLength(text, 'utf8');
        this.add(p, line, at, at + size);
        at += size + 1;
      }
    }
  }

  /**
   * Splits each partition's bytes into non-blank lines, checking what the eager reader checks
   * before parsing (line length caps, strict UTF-8 of the whole partition); nothing is decoded.
   */
  static read(partitions: readonly { file: string; bytes: Uint8Array }[], maxLineBytes: number): RecordLines {
    const out = new RecordLines();
    for (const { file, bytes } of partitions) {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const p = out.addPartition(file, buffer);
      forEachJsonLineRange(buffer, file, maxLineBytes, (line, start, end) => out.add(p, line, start, end));
    }
    return out;
  }

  private addPartition(file: string, bytes: Buffer): number {
    this.partitions.push({ file, bytes });
    return this.partitions.length - 1;
  }

  private add(partition: number, line: number, start: number, end: number): void {
    this.partitionOf.push(partition);
    this.lineNumber.push(line);
    this.start.push(start);
    this.end.push(end);
  }

  get length(): number {
    return this.start.length;
  }

  /** The text of line `i` (decoded now). */
  text(i: number): string {
    return this.partitions[this.partitionOf[i]!]!.bytes.toString('utf8', this.start[i]!, this.end[i]!);
  }

  /** True when line `i` is exactly `text` (compared as UTF-8, without decoding the line). */
  equals(i: number, text: string): boolean {
    const size = this.end[i]! - this.start[i]!;
    // A UTF-16 code unit is at most 3 UTF-8 bytes: lengths alone rule most mismatches out.
    if (text.length > size || text.length * 3 < size) return false;
    if (this.scratch.length < size + 4) this.scratch = Buffer.allocUnsafe(Math.max(size + 4, this.scratch.length * 2));
    const written = this.scratch.write(text, 0, 'utf8');
    if (written !== size) return false;
    return this.scratch.compare(this.partitions[this.partitionOf[i]!]!.bytes, this.start[i]!, this.end[i]!, 0, size) === 0;
  }

  /** Where the UTF-8 bytes of line `i` are, in the partition it was read from. */
  bytesOf(i: number): LineBytes {
    return { source: this.partitions[this.partitionOf[i]!]!.bytes, start: this.start[i]!, end: this.end[i]! };
  }

  /** The file (partition) line `i` was read from. */
  partitionFile(i: number): string {
    return this.partitions[this.partitionOf[i]!]!.file;
  }

  /** Record `i`, parsed and checked (a `bad_record` error names its file and line). */
  record(i: number): MemoryRecord {
    let record = this.parsed[i];
    if (record === undefined) {
      const file = this.partitions[this.partitionOf[i]!]!.file;
      const jsonLine = { line: this.lineNumber[i]!, text: this.text(i) };
      record = this.parsed[i] = lineRecord(file, jsonLine, parseLineObject(file, jsonLine));
    }
    return record;
  }

  /**
   * The id a line starts with, as our writer (and the reference's) puts it first:
   * `{"id":"<text without escapes>",`. Only a hint for finding the line an unchanged record
   * serializes to — a line that is not matched exactly is parsed, and its parsed id counts.
   */
  idHint(i: number): string | null {
    const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
    const start = this.start[i]!;
    const end = this.end[i]!;
    if (end - start < 9) return null;
    for (let k = 0; k < ID_PREFIX.length; k++) if (bytes[start + k] !== ID_PREFIX[k]) return null;
    const close = bytes.indexOf(0x22 /* " */, start + ID_PREFIX.length);
    if (close < 0 || close + 1 >= end || bytes[close + 1] !== 0x2c /* , */) return null;
    const backslash = bytes.indexOf(0x5c, start + ID_PREFIX.length);
    if (backslash >= 0 && backslash < close) return null;
    return bytes.toString('utf8', start + ID_PREFIX.length, close);
  }

  /**
   * The lines by their {@link idHint}, without making a string per line: an open-addressing table
   * of line numbers over the hints' bytes. Lines whose hint is missing or not ASCII are left out,
   * and so is every line after the first with a hint already seen; `irregular` says whether any
   * line was left out.
   */
  idIndex(): LineIdIndex {
    let size = 16;
    while (size < this.length * 2) size *= 2;
    const table = new Int32Array(size);
    const mask = size - 1;
    const hintEnd = new Int32Array(this.length);
    let irregular = false;
    for (let i = 0; i < this.length; i++) {
      const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
      const from = this.start[i]! + ID_PREFIX.length;
      const close = this.asciiHintEnd(i);
      if (close < 0) {
        irregular = true;
        continue;
      }
      hintEnd[i] = close;
      let h = 0x811c9dc5;
      for (let k = from; k < close; k++) h = Math.imul(h ^ bytes[k]!, 16777619);
      for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
        const held = table[slot]!;
        if (held === 0) {
          table[slot] = i + 1;
          break;
        }
        const other = held - 1;
        const otherBytes = this.partitions[this.partitionOf[other]!]!.bytes;
        const otherFrom = this.start[other]! + ID_PREFIX.length;
        if (hintEnd[other]! - otherFrom === close - from && otherBytes.compare(bytes, from, close, otherFrom, hintEnd[other]!) === 0) {
          irregular = true; // a repeated hint: only the first line is found by it
          break;
        }
      }
    }
    const matches = (i: number, id: string): boolean => {
      const end = hintEnd[i]!;
      const from = this.start[i]! + ID_PREFIX.length;
      if (end === 0 || end - from !== id.length) return false;
      const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
      for (let k = 0; k < id.length; k++) if (bytes[from + k] !== id.charCodeAt(k)) return false;
      return true;
    };
    return {
      irregular,
      lineOf(id: string): number {
        let h = 0x811c9dc5;
        for (let k = 0; k < id.length; k++) {
          const c = id.charCodeAt(k);
          if (c >= 0x80) return -1;
          h = Math.imul(h ^ c, 16777619);
        }
        for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
          const held = table[slot]!;
          if (held === 0) return -1;
          if (matches(held - 1, id)) return held - 1;
        }
      },
      hintIs: (i, id) => matches(i, id),
    };
  }

  /** Where line `i`'s id hint ends (its closing quote), when it has one in ASCII; else -1. */
  private asciiHintEnd(i: number): number {
    const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
    const start = this.start[i]!;
    const end = this.end[i]!;
    if (end - start < 9) return -1;
    for (let k = 0; k < ID_PREFIX.length; k++) if (bytes[start + k] !== ID_PREFIX[k]) return -1;
    for (let k = start + ID_PREFIX.length; k < end; k++) {
      const b = bytes[k]!;
      if (b === 0x22 /* " */) return k + 1 < end && bytes[k + 1] === 0x2c /* , */ ? k : -1;
      if (b === 0x5c /* \ */ || b >= 0x80) return -1;
    }
    return -1;
  }

  /**
   * The `created_at` and `observed_at` (when present) of record `i`, what its partition is decided
   * by, read from its line's `"temporal":{…}` object without parsing the line (the record is
   * parsed when that object is not a flat one with string timestamps).
   */
  timestamps(i: number): RecordTimestamps {
    const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
    const start = this.start[i]!;
    const end = this.end[i]!;
    // Searched in the whole partition, not a view of the line: a record line holds its temporal
    // key (else its record is parsed below, which fails or finds it), so a search ends within the
    // line or, looking for a second one, at the next line's.
    const at = bytes.indexOf(TEMPORAL_KEY, start);
    const open = at + TEMPORAL_KEY.length - 1;
    const close = at < 0 || at >= end ? -1 : bytes.indexOf(0x7d /* } */, open);
    const again = close < 0 || close >= end ? -1 : bytes.indexOf(TEMPORAL_KEY, close);
    if (close >= 0 && close < end && (again < 0 || again >= end)) {
      // Lines of one file follow each other with the same temporal text.
      const last = this.lastTemporal;
      if (last !== null && last.bytes === bytes && last.end - last.start === close + 1 - open
        && bytes.compare(bytes, last.start, last.end, open, close + 1) === 0) return last.timestamps;
      const temporal = tryParseObject(bytes.toString('utf8', open, close + 1));
      const createdAt = temporal?.created_at;
      const observedAt = temporal?.observed_at;
      if (typeof createdAt === 'string' && (observedAt === undefined || typeof observedAt === 'string')) {
        const timestamps: RecordTimestamps = observedAt === undefined ? { created_at: createdAt } : { created_at: createdAt, observed_at: observedAt };
        this.lastTemporal = { bytes, start: open, end: close + 1, timestamps };
        return timestamps;
      }
    }
    const { created_at, observed_at } = this.record(i).temporal;
    return typeof observed_at === 'string' ? { created_at, observed_at } : { created_at };
  }

  /** Where line `i` was read, for error messages. */
  describe(i: number): string {
    return `${this.partitions[this.partitionOf[i]!]!.file} line ${this.lineNumber[i]}`;
  }

  /** Throws the eager reader's `duplicate_record_id` error if two lines carry the same id. */
  assertUniqueIds(idOf: (i: number) => string): void {
    const first = new Map<string, number>();
    for (let i = 0; i < this.length; i++) {
      const id = idOf(i);
      const seen = first.get(id);
      if (seen !== undefined) {
        throw new ArchiveError('duplicate_record_id', `record id ${id} appears twice: ${this.describe(seen)} and ${this.describe(i)}`);
      }
      first.set(id, i);
    }
  }
}

const ID_PREFIX = Buffer.from('{"id":"', 'latin1');

/** See {@link RecordLines.idIndex}. */
export interface LineIdIndex {
  /** Whether some line is not in the index (no ASCII hint, or a hint seen on an earlier line). */
  readonly irregular: boolean;
  /** The line whose hint is `id`, or -1. */
  lineOf(id: string): number;
  /** Whether line `i` is in the index under `id`. */
  hintIs(i: number, id: string): boolean;
}
const TEMPORAL_KEY = Buffer.from('"temporal":{', 'latin1');

function tryParseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
