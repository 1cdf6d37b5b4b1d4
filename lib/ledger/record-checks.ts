/**
 * The ingest's checks of a snapshot's records (ingest-checks.ts `checkSnapshotRecord`), made while
 * a sync in this process makes each record's line (lib/sync/snapshot.ts `checkedRecordLines`), so
 * that a record it built is walked once — by the shape check, the id check and these together —
 * and not again by the ingest that takes the snapshot as written (ingest.ts `checkedSnapshot`).
 *
 * The verdict is the one the ingest would reach. Each record is checked but for U+0000; that one is
 * decided on the lines' bytes once they are all made (`done`): JSON can hold U+0000 only as the
 * escape `\u0000`, so the records whose lines hold no such text hold none, and only a record whose
 * line does (rare: that escape, or a backslash before "u0000") is walked for it. A refused record is
 * kept, and the ingest, once the snapshot's manifest and layers have passed, checks the refused
 * records again in the order a reader meets them, so the first refusal it throws is the one it would
 * throw checking them all (named by the same place in the archive). The verdict is taken only for a
 * snapshot written from the very array checked here, every record of it in order; any other written
 * snapshot, and every snapshot read from bytes (an upload, a base), is checked whole as before.
 */
import type { LineBytes } from '@/lib/core/archive/record-lines';
import type { MemoryRecord } from '@/lib/core/record';
import { checkBuiltRecord, checkSnapshotRecord } from './ingest-checks';

/** The text of JSON's escape for U+0000, as UTF-8. */
const NUL_ESCAPE = Buffer.from('\\u0000', 'latin1');

export class RecordChecks {
  private next = 0;
  private broken = false;
  private finished = false;
  private readonly refused = new Set<MemoryRecord>();

  /** `records`: the array the snapshot is written from (`writeSnapshotRead`'s `snapshot.records`). */
  constructor(readonly records: readonly MemoryRecord[]) {}

  /** Checks `records[i]` on the i-th call, but for U+0000 (`done`). */
  check(record: MemoryRecord): void {
    if (this.records[this.next++] !== record) this.broken = true;
    try {
      checkBuiltRecord(record, 0, true); // U+0000: `done`, for the lines that hold its escape
    } catch {
      this.refused.add(record);
    }
  }

  /** Once every record is checked: `lines[i]`, exactly the bytes of `records[i]`'s JSON line, decide U+0000. */
  done(lines: readonly LineBytes[]): void {
    if (this.finished || this.next !== this.records.length || lines.length !== this.records.length) {
      this.broken = true;
      return;
    }
    this.finished = true;
    for (const i of linesHolding(lines, NUL_ESCAPE)) {
      const record = this.records[i]!;
      try {
        checkBuiltRecord(record, 0, false);
      } catch {
        this.refused.add(record);
      }
    }
  }

  /** Whether every record of `source` (a written snapshot's: write-snapshot.ts `WrittenSnapshot.source`) was checked here. */
  covers(source: readonly MemoryRecord[]): boolean {
    return !this.broken && this.finished && source === this.records;
  }

  /**
   * The verdict on `inArchiveOrder` (the same records as a reader meets them: `WrittenSnapshot.records`):
   * throws what checking each in that order would throw first; returns when none is refused.
   */
  verdict(inArchiveOrder: readonly MemoryRecord[]): void {
    if (this.refused.size === 0) return;
    inArchiveOrder.forEach((record, index) => {
      if (this.refused.has(record)) checkSnapshotRecord(record, index);
    });
  }
}

/**
 * The indexes of the lines whose bytes hold `text`: each buffer the lines sit in searched once, up to
 * the end of its last line (a first sync's lines share a few large buffers: archive/partition-lines.ts).
 */
function linesHolding(lines: readonly LineBytes[], text: Buffer): number[] {
  const extent = new Map<Uint8Array, number>();
  let source: Uint8Array | null = null;
  let end = 0;
  for (const line of lines) {
    if (line.source !== source) {
      if (source !== null) extent.set(source, end);
      source = line.source;
      end = extent.get(source) ?? 0;
    }
    if (line.end > end) end = line.end;
  }
  if (source !== null) extent.set(source, end);
  const hits = new Map<Uint8Array, number[]>();
  for (const [buffer, upTo] of extent) {
    const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, upTo);
    for (let at = bytes.indexOf(text); at >= 0; at = bytes.indexOf(text, at + 1)) {
      let found = hits.get(buffer);
      if (!found) hits.set(buffer, (found = []));
      found.push(at);
    }
  }
  if (hits.size === 0) return [];
  const holding: number[] = [];
  lines.forEach((line, i) => {
    const found = hits.get(line.source);
    if (found?.some((at) => at >= line.start && at + text.length <= line.end)) holding.push(i);
  });
  return holding;
}
