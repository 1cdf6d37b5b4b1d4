/**
 * Where each memory record's text sits in a file, for blame: pure, no database. A record's own
 * `raw_source_format.line_start`/`line_end` are used when the file's lines there are its content
 * (they are the exporter's, so they can be stale: a record-only delta's file is rendered from the
 * records, a section above may have grown); otherwise its content is looked for in the text.
 */
import { rustTrimEnd } from '@/lib/core/rust-str';

export interface PlaceableRecord {
  record_id: string;
  content: string;
  line_start: number | null;
  line_end: number | null;
}

export interface PlacedRecord<R extends PlaceableRecord> {
  record: R;
  /** 1-based, inclusive. */
  lineStart: number;
  lineEnd: number;
}

/** The file's lines as shown: split on `\n`, one trailing `\r` dropped per line, no empty element after a final newline. */
export function fileLines(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Content compared as the move rule does: line endings and each line's trailing whitespace ignored. */
function comparable(text: string): string {
  return rustTrimEnd(text.replace(/\r\n?/g, '\n').split('\n').map(rustTrimEnd).join('\n'));
}

/** The 1-based line of the character at `index` of `text`, through a prefix table of newline offsets. */
function lineIndex(text: string): (index: number) => number {
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const overlaps = (taken: boolean[], start: number, end: number) => taken.slice(start, end + 1).some(Boolean);

/**
 * The records placed in `text`, sorted by first line, never overlapping; `unplaced` are the ids of
 * records whose text the file does not hold where nothing else is (they are left to the file's raw change).
 * Records are tried in their hinted order, so identical sections take their occurrences in file order.
 */
export function placeRecords<R extends PlaceableRecord>(text: string, records: readonly R[]): { placed: PlacedRecord<R>[]; unplaced: string[] } {
  const lines = fileLines(text);
  const taken: boolean[] = new Array(lines.length + 2).fill(false);
  // CRLF → LF keeps every line number, so offsets in `search` give the lines of `text`.
  const search = text.replace(/\r\n/g, '\n');
  const lineOf = lineIndex(search);
  const placed: PlacedRecord<R>[] = [];
  const unplaced: string[] = [];
  const ordered = [...records].sort((a, b) => (a.line_start ?? Infinity) - (b.line_start ?? Infinity) || (a.record_id < b.record_id ? -1 : 1));
  const claim = (record: R, lineStart: number, lineEnd: number) => {
    for (let l = lineStart; l <= lineEnd; l++) taken[l] = true;
    placed.push({ record, lineStart, lineEnd });
  };
  for (const record of ordered) {
    const want = comparable(record.content);
    const { line_start: s, line_end: e } = record;
    if (s !== null && e !== null && s >= 1 && e >= s && e <= lines.length && !overlaps(taken, s, e)
      && comparable(lines.slice(s - 1, e).join('\n')) === want) {
      claim(record, s, e);
      continue;
    }
    const needle = rustTrimEnd(record.content.replace(/\r\n/g, '\n'));
    let found = false;
    for (let at = needle ? search.indexOf(needle) : -1; at >= 0; at = search.indexOf(needle, at + 1)) {
      const start = lineOf(at);
      const end = lineOf(at + needle.length - 1);
      if (!overlaps(taken, start, end)) {
        claim(record, start, end);
        found = true;
        break;
      }
    }
    if (!found) unplaced.push(record.record_id);
  }
  placed.sort((a, b) => a.lineStart - b.lineStart);
  return { placed, unplaced };
}
