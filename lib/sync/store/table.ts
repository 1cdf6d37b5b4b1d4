/**
 * A file's record table in the client-state store: one row per record the file's sections became
 * at the last sync, in the file's section order. The row holds what the next sync needs of that
 * record without its line: the section's key (the file keys), whether it paired early with its
 * base line (then the key alone says which record it becomes next time: the record memo), the
 * quarter partition our writer put it in, the record's id, and where its JSONL line is in the log.
 *
 * Text, one row per line: `<key> <e|p> <YYYY-Qn> <line offset> <line length> <id as JSON>\n`.
 */
import { StoreDamaged } from './errors';
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

const ROW = /^([\x21-\x7e]+) ([ep]) (\d{4}-Q[1-4]) (\d{1,15}) (\d{1,10}) ("(?:[^"\\]|\\.)*")$/;
const PARTITION = /^memory\/(\d{4}-Q[1-4])\.jsonl$/;

export function encodeTable(rows: readonly TableRow[]): Buffer {
  let text = '';
  let lastPartition = '';
  let quarter = '';
  for (const row of rows) {
    if (row.partition !== lastPartition) {
      const q = PARTITION.exec(row.partition)?.[1];
      if (!q) throw new Error(`store table: ${JSON.stringify(row.partition)} is not a partition file of ours`);
      lastPartition = row.partition;
      quarter = q;
    }
    const id = jsonString(row.id);
    text += `${row.key} ${row.early ? 'e' : 'p'} ${quarter} ${row.line.off} ${row.line.len} ${id}\n`;
  }
  return Buffer.from(text, 'utf8');
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
