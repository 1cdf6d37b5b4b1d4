/**
 * The part of a base a sync reconciles against when it reconciles only some files: the records of
 * those files, in the base's order, as reconcileWithBase reads a base (`BaseLines`). Ids and
 * partitions come from the record tables; a line's bytes are read from the log only when asked for
 * — a record known unchanged pairs with its line without the line being read.
 */
import type { LineBytes, LineIdIndex, RecordTimestamps } from '@/lib/core/archive/record-lines';
import { lineRecord, parseLineObject } from '@/lib/core/archive/read-common';
import { ArchiveError } from '@/lib/core/archive/types';
import type { MemoryRecord } from '@/lib/core/record';
import type { BaseLines } from '@/lib/core/reconcile-base';
import { StoreDamaged } from './errors';
import type { Ref } from './index-file';
import type { LogReader } from './log';

export interface StoreLine {
  id: string;
  partition: string;
  /** Where the line is in the log, or its bytes (a line not written yet). */
  line: Ref | Buffer;
  /**
   * The record whose `recordJson` the line's bytes are, when the line was just made of it (a
   * stability try, stable.ts): taken as the line's record rather than parsing the line back.
   */
  record?: MemoryRecord;
}

export class StoreLines implements BaseLines {
  private readonly bytes: (Buffer | undefined)[];
  private readonly parsed: (MemoryRecord | undefined)[];

  constructor(private readonly lines: readonly StoreLine[], private readonly log: LogReader | null) {
    this.bytes = lines.map((l) => (Buffer.isBuffer(l.line) ? l.line : undefined));
    this.parsed = lines.map((l) => l.record);
  }

  get length(): number {
    return this.lines.length;
  }

  idIndex(): LineIdIndex {
    const at = new Map<string, number>();
    let irregular = false;
    this.lines.forEach((l, i) => {
      if (at.has(l.id)) irregular = true;
      else at.set(l.id, i);
    });
    return { irregular, lineOf: (id) => at.get(id) ?? -1, hintIs: (i, id) => this.lines[i]!.id === id && at.get(id) === i };
  }

  idHint(i: number): string {
    return this.lines[i]!.id;
  }

  partitionFile(i: number): string {
    return this.lines[i]!.partition;
  }

  timestamps(i: number): RecordTimestamps {
    const { created_at, observed_at } = this.record(i).temporal;
    return typeof observed_at === 'string' ? { created_at, observed_at } : { created_at };
  }

  bytesOf(i: number): LineBytes {
    const source = this.lineBytes(i);
    return { source, start: 0, end: source.length };
  }

  equals(i: number, text: string): boolean {
    const bytes = this.lineBytes(i);
    return bytes.length >= text.length && bytes.length <= text.length * 3 && bytes.equals(Buffer.from(text, 'utf8'));
  }

  text(i: number): string {
    return this.lineBytes(i).toString('utf8');
  }

  record(i: number): MemoryRecord {
    let record = this.parsed[i];
    if (record === undefined) {
      const where = { line: i + 1, text: this.text(i) };
      const file = `client state ${this.lines[i]!.partition}`;
      try {
        record = this.parsed[i] = lineRecord(file, where, parseLineObject(file, where));
      } catch (error) {
        // A line of the store that does not read is damage, not a bad archive.
        throw new StoreDamaged(error instanceof Error ? error.message : String(error));
      }
      // The table names the record: a line that says otherwise is not this store's.
      if (record.id !== this.lines[i]!.id) throw new StoreDamaged(`${file}: record ${this.lines[i]!.id} has the line of ${record.id}`);
    }
    return record;
  }

  assertUniqueIds(idOf: (i: number) => string): void {
    const first = new Map<string, number>();
    for (let i = 0; i < this.length; i++) {
      const id = idOf(i);
      if (first.has(id)) throw new ArchiveError('duplicate_record_id', `record id ${id} appears twice in the client state`);
      first.set(id, i);
    }
  }

  private lineBytes(i: number): Buffer {
    let bytes = this.bytes[i];
    if (bytes === undefined) {
      if (!this.log) throw new Error(`store lines: line ${i} is in a log none was given for`);
      bytes = this.bytes[i] = this.log.read(this.lines[i]!.line as Ref);
    }
    return bytes;
  }
}
