import { partitionTimestamp, type MemoryRecord } from '../record';
import { ArchiveError } from './types';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp with any offset into UTC milliseconds, or null.
 * Done by hand because `Date.parse` reads offset-less text as local time.
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  const offsetHours = m[10] === undefined ? 0 : Number(m[10]);
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = m[9] === '-' ? -1 : 1;
  const offset = sign * (offsetHours * 60 + offsetMinutes);
  const seconds = Math.min(second, 59);
  // Date.UTC maps years 0–99 to 1900–1999, so those rare years take the slower exact path.
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute - offset, seconds);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offset, seconds, 0);
  return utc.getTime();
}

/** True for an RFC 3339 full-date `YYYY-MM-DD` that exists in the calendar. */
export function isFullDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** One quarterly partition as the manifest lists it (CONTRACT §3.4). */
export interface QuarterPartition {
  file: string;
  from: string;
  to: string;
  records: MemoryRecord[];
  /** Where each of `records` is in the input. */
  indexes: number[];
}

const QUARTER_RANGES = [
  ['01-01', '03-31'],
  ['04-01', '06-30'],
  ['07-01', '09-30'],
  ['10-01', '12-31'],
] as const;

/**
 * The last timestamp `quarterOf` placed and its quarter: records come in runs with the same
 * timestamp (a file's sections share its mtime), and parsing it again for each is most of the work.
 */
let lastPlaced: { stamp: string; quarter: { year: string; quarter: 1 | 2 | 3 | 4 } } | null = null;

/** The quarter (`2026-Q1`) holding a record: observed_at if present, else created_at, in UTC. */
export function quarterOf(record: MemoryRecord): { year: string; quarter: 1 | 2 | 3 | 4 } {
  const stamp = partitionTimestamp(record);
  if (lastPlaced !== null && lastPlaced.stamp === stamp) return { ...lastPlaced.quarter };
  const quarter = placedQuarter(record, stamp);
  lastPlaced = { stamp, quarter: { ...quarter } };
  return quarter;
}

function placedQuarter(record: MemoryRecord, stamp: string): { year: string; quarter: 1 | 2 | 3 | 4 } {
  const millis = parseRfc3339(stamp);
  if (millis === null) {
    throw new ArchiveError('bad_record', `record ${record.id}: timestamp ${JSON.stringify(stamp)} is not RFC 3339`);
  }
  const date = new Date(millis);
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new ArchiveError('bad_record', `record ${record.id}: year ${year} out of range`);
  return { year: String(year).padStart(4, '0'), quarter: (Math.floor(date.getUTCMonth() / 3) + 1) as 1 | 2 | 3 | 4 };
}

/** The partition file our writer puts a record in (`memory/2026-Q1.jsonl`). */
export function partitionFileOf(record: MemoryRecord): string {
  const { year, quarter } = quarterOf(record);
  return quarterFile(year, quarter);
}

function quarterFile(year: string, quarter: 1 | 2 | 3 | 4): string {
  return `memory/${year}-Q${quarter}.jsonl`;
}

const OWN_PARTITION_FILE = /^memory\/(\d{4})-Q([1-4])\.jsonl$/;

/** True for a partition file name as our writer makes them (`partitionFileOf`). */
export function isOwnPartitionFile(file: string): boolean {
  return OWN_PARTITION_FILE.test(file);
}

/**
 * Groups records into quarterly partitions ordered by file name; input order kept inside each.
 * `placedIn(record)`: the partition file a record is known to belong in (one of ours, see
 * `isOwnPartitionFile`), for records that carry no timestamps; undefined for the others.
 */
export function partitionRecords(records: readonly MemoryRecord[], placedIn?: (record: MemoryRecord) => string | undefined): QuarterPartition[] {
  const byFile = new Map<string, QuarterPartition>();
  // Many records share a timestamp (every section of a file): parse each distinct one once.
  const quarterOfStamp = new Map<string, { file: string; year: string; quarter: 1 | 2 | 3 | 4 }>();
  const quarterOfFile = new Map<string, { file: string; year: string; quarter: 1 | 2 | 3 | 4 }>();
  records.forEach((record, index) => {
    const placed = placedIn?.(record);
    let where;
    if (placed !== undefined) {
      where = quarterOfFile.get(placed);
      if (where === undefined) {
        const m = OWN_PARTITION_FILE.exec(placed);
        if (!m) throw new Error(`partitionRecords: ${JSON.stringify(placed)} is not a partition file of ours`);
        quarterOfFile.set(placed, (where = { file: placed, year: m[1]!, quarter: Number(m[2]) as 1 | 2 | 3 | 4 }));
      }
    } else {
      const stamp = partitionTimestamp(record);
      where = quarterOfStamp.get(stamp);
      if (where === undefined) {
        const { year, quarter } = quarterOf(record);
        quarterOfStamp.set(stamp, (where = { file: quarterFile(year, quarter), year, quarter }));
      }
    }
    const { file, year, quarter } = where;
    let partition = byFile.get(file);
    if (!partition) {
      const [from, to] = QUARTER_RANGES[quarter - 1]!;
      partition = { file, from: `${year}-${from}`, to: `${year}-${to}`, records: [], indexes: [] };
      byFile.set(file, partition);
    }
    partition.records.push(record);
    partition.indexes.push(index);
  });
  return [...byFile.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Matches partition files the writer owns, in either layout (§3.1 discrepancy). */
export const PARTITION_FILE = /^memory\/(?:partitions\/)?\d{4}-Q[1-4]\.jsonl$/;
