import type { MemoryRecord } from '../record';
import { lineRecord, parseLineObject } from './read-common';
import { splitJsonLines, type JsonLine } from './json-text';
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
  readonly lines: readonly string[];
  private readonly where: readonly { file: string; line: number; bytes?: Uint8Array; start?: number; end?: number }[];
  private readonly parsed: (MemoryRecord | undefined)[];

  /** Each partition's lines; with the partition's `bytes`, a line's bytes are a view of them. */
  constructor(partitions: readonly { file: string; bytes?: Uint8Array; lines: readonly (Pick<JsonLine, 'line' | 'text'> & Partial<JsonLine>)[] }[]) {
    const lines: string[] = [];
    const where: { file: string; line: number; bytes?: Uint8Array; start?: number; end?: number }[] = [];
    for (const { file, bytes, lines: fileLines } of partitions) {
      for (const line of fileLines) {
        lines.push(line.text);
        where.push({ file, line: line.line, bytes, start: line.start, end: line.end });
      }
    }
    this.lines = lines;
    this.where = where;
    this.parsed = new Array(lines.length);
  }

  /** Where the UTF-8 bytes of line `i` are: in the partition it was read from, else encoded now. */
  bytesOf(i: number): LineBytes {
    const { bytes, start, end } = this.where[i]!;
    if (bytes && start !== undefined && end !== undefined) return { source: bytes, start, end };
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
      const { file, line } = this.where[i]!;
      const jsonLine = { line, text: this.lines[i]! };
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
    const { file, line } = this.where[i]!;
    return `${file} line ${line}`;
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

/** Splits each partition's bytes into lines (line caps and UTF-8 checked, nothing parsed). */
export function recordLinesOf(partitions: readonly { file: string; bytes: Uint8Array }[], maxLineBytes: number): RecordLines {
  return new RecordLines(partitions.map(({ file, bytes }) => ({ file, bytes, lines: splitJsonLines(bytes, file, maxLineBytes) })));
}
