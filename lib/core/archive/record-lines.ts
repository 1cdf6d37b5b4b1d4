import type { MemoryRecord } from '../record';
import { lineRecord, parseLineObject } from './read-common';
import { forEachJsonLine, type JsonLine } from './json-text';
import { ArchiveError } from './types';

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
  /** Lines in archive order (partition order, then line order). */
  readonly lines: string[] = [];
  // Per line, as plain number arrays (no object per line): partition, 1-based line number, and
  // byte range in the partition (-1 when the partition's bytes are not held).
  private readonly partitionOf: number[] = [];
  private readonly lineNumber: number[] = [];
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  private readonly partitions: { file: string; bytes?: Uint8Array }[] = [];
  private readonly parsed: (MemoryRecord | undefined)[] = [];

  /** Each partition's lines; with the partition's `bytes`, a line's bytes are a range of them. */
  constructor(partitions: readonly { file: string; bytes?: Uint8Array; lines: readonly (Pick<JsonLine, 'line' | 'text'> & Partial<JsonLine>)[] }[] = []) {
    for (const { file, bytes, lines } of partitions) {
      const p = this.addPartition(file, bytes);
      for (const line of lines) this.add(p, line.line, line.text, line.start ?? -1, line.end ?? -1);
    }
  }

  /** Splits each partition's bytes into lines (line caps and UTF-8 checked, nothing parsed). */
  static read(partitions: readonly { file: string; bytes: Uint8Array }[], maxLineBytes: number): RecordLines {
    const out = new RecordLines();
    for (const { file, bytes } of partitions) {
      const p = out.addPartition(file, bytes);
      forEachJsonLine(bytes, file, maxLineBytes, (line, text, start, end) => out.add(p, line, text, start, end));
    }
    return out;
  }

  private addPartition(file: string, bytes: Uint8Array | undefined): number {
    this.partitions.push({ file, bytes });
    return this.partitions.length - 1;
  }

  private add(partition: number, line: number, text: string, start: number, end: number): void {
    this.lines.push(text);
    this.partitionOf.push(partition);
    this.lineNumber.push(line);
    this.start.push(start);
    this.end.push(end);
  }

  /** Where the UTF-8 bytes of line `i` are: in the partition it was read from, else encoded now. */
  bytesOf(i: number): LineBytes {
    const bytes = this.partitions[this.partitionOf[i]!]!.bytes;
    const start = this.start[i]!;
    if (bytes && start >= 0) return { source: bytes, start, end: this.end[i]! };
    const source = Buffer.from(this.lines[i]!, 'utf8');
    return { source, start: 0, end: source.byteLength };
  }

  get length(): number {
    return this.lines.length;
  }

  /** Record `i`, parsed and checked (a `bad_record` error names its file and line). */
  record(i: number): MemoryRecord {
    let record = this.parsed[i];
    if (record === undefined) {
      const file = this.partitions[this.partitionOf[i]!]!.file;
      const jsonLine = { line: this.lineNumber[i]!, text: this.lines[i]! };
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
    const text = this.lines[i]!;
    if (!text.startsWith('{"id":"')) return null;
    const end = text.indexOf('"', 7);
    if (end < 0 || text.charCodeAt(end + 1) !== 0x2c /* , */) return null;
    const id = text.slice(7, end);
    return id.includes('\\') ? null : id;
  }

  /** Where line `i` was read, for error messages. */
  describe(i: number): string {
    return `${this.partitions[this.partitionOf[i]!]!.file} line ${this.lineNumber[i]}`;
  }

  /** Throws the eager reader's `duplicate_record_id` error if two lines carry the same id. */
  assertUniqueIds(idOf: (i: number) => string): void {
    const first = new Map<string, number>();
    for (let i = 0; i < this.lines.length; i++) {
      const id = idOf(i);
      const seen = first.get(id);
      if (seen !== undefined) {
        throw new ArchiveError('duplicate_record_id', `record id ${id} appears twice: ${this.describe(seen)} and ${this.describe(i)}`);
      }
      first.set(id, i);
    }
  }
}

