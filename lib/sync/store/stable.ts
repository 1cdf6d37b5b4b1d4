/**
 * Whether a file a sync reconciled is stable: reconciling the very same export of it again, against
 * the records this sync made of it, changes nothing — no operation, every record the same line.
 * Then the next sync that finds the file unchanged need not reconcile it at all: its outcome is
 * known. Tried here, with the same code the next sync would run, rather than assumed (reconcile is
 * not idempotent: a file holding the same section twice can have its ids move on a second run).
 *
 * A file whose every record paired early (unchanged, or carried with the base's timestamps) is
 * stable without a try: the next sync pairs each by its key (the record memo) the same way.
 *
 * The try is made over the records that could come out otherwise: the rows that did not pair
 * early, and the early ones whose id a built record (one of the former's) also has. Every other
 * early row is what reconcileKnown would claim first thing — its known record pairs with its own
 * line, which is left out of the base with its id reserved (reconcile-known.ts) — so it passes the
 * check by construction; leaving it out of the try, its id reserved, hands reconcileWithBase the
 * same base lines, records and reserved ids in the same orders. The work is per row that changed,
 * not per row of the file (a 1% sync edits ~1.5 of a file's 100 sections). (An early row's id is
 * its section's birth id, which no other section of the file has, so in practice no early row goes
 * in and no reserved id is asked about; both are kept so that the rule is reconcileKnown's exactly.)
 */
import type { RecordSlot } from '@/lib/adapters/types';
import { recordJson } from '@/lib/core/record';
import { idsOnDemand } from './ids-on-demand';
import type { LogReader } from './log';
import { reconcileKnown, type ReconcileCode } from './reconcile-known';
import type { NextRow } from './write-state';

export function isStable(code: ReconcileCode, args: {
  agentId: string;
  /** The file's next rows (its records, in its section order) and its slots, alike. */
  rows: readonly NextRow[];
  slots: readonly RecordSlot[];
  log: LogReader | null;
  /**
   * Ids of rows of the file left out of `rows` (carried over: early, and no record built has
   * them): reserved, as the early rows left out of the try are.
   */
  reserved?: (id: string) => boolean;
}): boolean {
  const { rows, slots } = args;
  if (rows.every((row) => row.early)) return true;
  // The ids of the records reconcileKnown builds: those of the slots not known (rows not early).
  const builtIds = new Set<string>();
  for (let j = 0; j < rows.length; j++) if (!rows[j]!.early) builtIds.add((slots[j]!.record ?? slots[j]!.build()).id);
  // Tried: rows not early, and early rows whose id a built record has (they go in, not claimed).
  const tried: number[] = [];
  for (let j = 0; j < rows.length; j++) if (!rows[j]!.early || builtIds.has(rows[j]!.id)) tried.push(j);
  // The next base holds the file's records by partition, then in the file's order.
  const order = tried.slice().sort((a, b) => (rows[a]!.partition < rows[b]!.partition ? -1 : rows[a]!.partition > rows[b]!.partition ? 1 : a - b));
  const position = new Map<number, number>();
  order.forEach((j, i) => position.set(j, i));
  // A row's line made now of its record (`record`) is not parsed back: that record is the line's.
  const lines = order.map((j) => ({ id: rows[j]!.id, partition: rows[j]!.partition, line: lineOf(rows[j]!), rel: '', record: rows[j]!.record }));
  const known = Int32Array.from(tried, (j) => (rows[j]!.early ? position.get(j)! : -1));
  let again;
  try {
    again = reconcileKnown(code, {
      agentId: args.agentId, lines, slots: tried.map((j) => slots[j]!), known, log: args.log, spotCheck: false,
      // The ids of the early rows left out of the try (claimed, as reconcileKnown would) are reserved.
      reserved: idsOnDemand((add) => rows.forEach((row) => row.early && !builtIds.has(row.id) && add(row.id)), args.reserved),
    });
  } catch {
    return false;
  }
  if (again.entries.length > 0) return false;
  return tried.every((j, k) => {
    const row = rows[j]!;
    if (again.paired[k]! >= 0) return again.paired[k] === position.get(j);
    const out = again.records[k]!;
    if (out.id !== row.id) return false;
    const line = row.line;
    return line instanceof Uint8Array && Buffer.from(recordJson(out), 'utf8').equals(line);
  });
}


function lineOf(row: NextRow): Buffer | { off: number; len: number } {
  const line = row.line;
  return line instanceof Uint8Array ? Buffer.from(line.buffer, line.byteOffset, line.byteLength) : line;
}
