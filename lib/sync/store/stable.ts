/**
 * Whether a file a sync reconciled is stable: reconciling the very same export of it again, against
 * the records this sync made of it, changes nothing — no operation, every record the same line.
 * Then the next sync that finds the file unchanged need not reconcile it at all: its outcome is
 * known. Tried here, with the same code the next sync would run, rather than assumed (reconcile is
 * not idempotent: a file holding the same section twice can have its ids move on a second run).
 *
 * A file whose every record paired early (unchanged, or carried with the base's timestamps) is
 * stable without a try: the next sync pairs each by its key (the record memo) the same way.
 */
import type { RecordSlot } from '@/lib/adapters/types';
import { recordJson } from '@/lib/core/record';
import type { LogReader } from './log';
import { reconcileKnown, type ReconcileCode } from './reconcile-known';
import type { NextRow } from './write-state';

export function isStable(code: ReconcileCode, args: {
  agentId: string;
  /** The file's next rows (its records, in its section order) and its slots, alike. */
  rows: readonly NextRow[];
  slots: readonly RecordSlot[];
  log: LogReader | null;
}): boolean {
  const { rows } = args;
  if (rows.every((row) => row.early)) return true;
  // The next base holds the file's records by partition, then in the file's order.
  const order = rows.map((_, k) => k).sort((a, b) => (rows[a]!.partition < rows[b]!.partition ? -1 : rows[a]!.partition > rows[b]!.partition ? 1 : a - b));
  const position = new Int32Array(rows.length);
  order.forEach((k, i) => { position[k] = i; });
  const lines = order.map((k) => ({ id: rows[k]!.id, partition: rows[k]!.partition, line: lineOf(rows[k]!), rel: '' }));
  const known = Int32Array.from(rows, (row, j) => (row.early ? position[j]! : -1));
  let again;
  try {
    again = reconcileKnown(code, { agentId: args.agentId, lines, slots: args.slots, known, log: args.log, spotCheck: false });
  } catch {
    return false;
  }
  if (again.entries.length > 0) return false;
  return again.records.every((out, j) => {
    const row = rows[j]!;
    if (out.id !== row.id) return false;
    if (again.paired[j]! >= 0) return again.paired[j] === position[j];
    const line = row.line;
    return line instanceof Uint8Array && Buffer.from(recordJson(out), 'utf8').equals(line);
  });
}

function lineOf(row: NextRow): Buffer | { off: number; len: number } {
  const line = row.line;
  return line instanceof Uint8Array ? Buffer.from(line.buffer, line.byteOffset, line.byteLength) : line;
}
