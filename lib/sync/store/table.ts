/**
 * A file's record table in the client-state store: one row per record the file's sections became
 * at the last sync, in the file's section order. The row holds what the next sync needs of that
 * record without its line: the section's key (the file keys), whether it paired early with its
 * base line (then the key alone says which record it becomes next time: the record memo), the
 * quarter partition our writer put it in, the record's id, and where its JSONL line is in the log.
 *
 * Text, one row per line: `<key> <e|p> <YYYY-Qn> <line offset> <line length> <id as JSON>\n`.
 */
import { isAscii } from 'node:buffer';
import { StoreDamaged } from './errors';
import type { KeySource } from '@/lib/adapters/openclaw/section-keys';
import { jsonString, parseJsonString } from './json-string';

export interface TableRow {
  /** The section's record key (RecordSlot.key). */
  key: string;
  /** It paired early with its base line: a later export of the same key is that record, unchanged. */
  early: boolean;
  /** `memory/YYYY-Qn.jsonl` of our writer. */
  partition: string;
  id: string;
  /** The record's JSONL line in the log (no newline). */
  line: { off: number; len: number };
}

/** A row's fields (the id: a JSON string on one line), as written by encodeRows. */
const FIELDS = String.raw`([\x21-\x7e]+) ([ep]) (\d{4}-Q[1-4]) (\d{1,15}) (\d{1,10}) ("(?:[^"\\\n]|\\.)*")`;
const ROW = new RegExp(`^${FIELDS}$`);
const PARTITION = /^memory\/(\d{4}-Q[1-4])\.jsonl$/;

export function encodeTable(rows: readonly TableRow[]): Buffer {
  return Buffer.from(encodeRows(rows), 'utf8');
}

/**
 * The text of `rows` (encodeTable's, before its UTF-8): each row's text, joined once — not a
 * string grown by `+=` row after row, whose rope of pieces the encoding then flattens.
 */
export function encodeRows(rows: readonly TableRow[]): string {
  const texts: string[] = new Array(rows.length);
  let lastPartition = '';
  let quarter = '';
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if (row.partition !== lastPartition) {
      quarter = quarterOf(row.partition);
      lastPartition = row.partition;
    }
    texts[k] = `${row.key} ${row.early ? 'e' : 'p'} ${quarter} ${row.line.off} ${row.line.len} ${jsonString(row.id)}\n`;
  }
  return texts.join('');
}

function quarterOf(partition: string): string {
  const q = PARTITION.exec(partition)?.[1];
  if (!q) throw new Error(`store table: ${JSON.stringify(partition)} is not a partition file of ours`);
  return q;
}

/** The rows of a table block; StoreDamaged when it is not exactly as written. */
export function parseTable(bytes: Buffer, what: string): TableRow[] {
  const text = bytes.toString('utf8');
  if (text.length === 0) return [];
  if (!text.endsWith('\n')) throw new StoreDamaged(`${what}: torn record table`);
  const rows: TableRow[] = [];
  const partitions = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    const m = ROW.exec(line);
    if (!m) throw new StoreDamaged(`${what}: unreadable record table row`);
    const id = parseJsonString(m[6]!);
    if (id === undefined) throw new StoreDamaged(`${what}: record id is not a string`);
    let partition = partitions.get(m[3]!);
    if (partition === undefined) partitions.set(m[3]!, (partition = `memory/${m[3]}.jsonl`));
    rows.push({ key: m[1]!, early: m[2] === 'e', partition, id, line: { off: Number(m[4]), len: Number(m[5]) } });
  }
  return rows;
}

/** The rows of the whole text, each line a row: what `parseTable` accepts, checked in one pass. */
const ROWS = new RegExp(`^(?:${FIELDS}\n)*$`);

/**
 * A table read for a sync that carries most of its rows over unread (a changed file whose other
 * sections did not change: their rows go into the next table as these very bytes). Checked whole
 * when made (the rows' shape, one regular expression over the text), each row parsed only when
 * asked for. Only a table in ASCII is viewed (a record id outside it: `TableView.of` gives null, and
 * the caller parses the table whole), so that character and byte offsets are the same. Its rows'
 * keys are the file's previous keying (section-keys.ts `KeySource`).
 */
export class TableView implements KeySource {
  /** Row k is `text.slice(starts[k], starts[k + 1])`, its newline included. */
  private readonly starts: Int32Array;
  private readonly parsed: (TableRow | undefined)[];

  private constructor(readonly bytes: Buffer, private readonly text: string, private readonly what: string) {
    const starts = [0];
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
    this.starts = Int32Array.from(starts);
    this.parsed = new Array(starts.length - 1);
  }

  static of(bytes: Buffer, what: string): TableView | null {
    // Native checks (a JavaScript loop over every character was a tenth of a 1% sync's export).
    if (!isAscii(bytes) || bytes.includes(0x7f)) return null;
    const text = bytes.toString('latin1');
    if (!ROWS.test(text)) throw new StoreDamaged(`${what}: unreadable record table row`);
    return new TableView(bytes, text, what);
  }

  /** How many rows. */
  get length(): number {
    return this.starts.length - 1;
  }

  /** Row k's key (the first field). */
  key(k: number): string {
    const at = this.starts[k]!;
    return this.text.slice(at, this.text.indexOf(' ', at));
  }

  /** Whether row k paired early (the second field). */
  early(k: number): boolean {
    return this.text.charCodeAt(this.text.indexOf(' ', this.starts[k]!) + 1) === 0x65; // e
  }

  /** Row k's line length in the log (the fifth field). */
  lineLen(k: number): number {
    let at = this.starts[k]!;
    for (let spaces = 0; spaces < 4; at++) if (this.text.charCodeAt(at) === 0x20) spaces++;
    let n = 0;
    for (let c = this.text.charCodeAt(at); c !== 0x20; c = this.text.charCodeAt(++at)) n = n * 10 + (c - 0x30);
    return n;
  }

  /** Row k parsed. */
  row(k: number): TableRow {
    return (this.parsed[k] ??= parseTable(this.bytes.subarray(this.starts[k]!, this.starts[k + 1]!), this.what)[0]!);
  }

  /** Rows from..to (exclusive) as the table's bytes (a view of them, not a copy). */
  rowBytes(from: number, to: number): Buffer {
    return this.bytes.subarray(this.starts[from]!, this.starts[to]!);
  }

  /** The row whose record id is `id`, or -1 (the first, when several). */
  rowOfId(id: string): number {
    const at = this.text.indexOf(` ${jsonString(id)}\n`);
    if (at < 0) return -1;
    let lo = 0;
    let hi = this.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
