/**
 * Whether a file a sync reconciled is stable: reconciling the very same export of it again, against
 * the records this sync made of it, changes nothing — no operation, every record the same line.
 * Then the next sync that finds the file unchanged need not reconcile it at all: its outcome is
 * known. Tried here, with the same code the next sync would run, rather than assumed.
 *
 * A file whose every record paired early (unchanged, or carried with the base's timestamps) is
 * stable without a try: the next sync pairs each by its key (the record memo) the same way.
 */
import type { RecordSlot } from '@/lib/adapters/types';
import { recordJson } from '@/lib/core/record';
import type { KnownRecord as KnownRecordClass, reconcileWithBase as reconcileFn } from '@/lib/core/reconcile-base';
import { StoreLines } from './base-lines';
import type { LogReader } from './log';
import type { NextRow } from './write-state';

export interface ReconcileCode {
  KnownRecord: typeof KnownRecordClass;
  reconcileWithBase: typeof reconcileFn;
}

export function isStable(code: ReconcileCode, args: {
  agentId: string;
  /** The file's next rows (its records, in its section order), its slots, and which paired early this sync. */
  rows: readonly NextRow[];
  slots: readonly RecordSlot[];
  paired: ArrayLike<number>;
  log: LogReader | null;
}): boolean {
  const { rows, slots } = args;
  let allEarly = true;
  for (let j = 0; j < rows.length; j++) if (args.paired[j]! < 0) allEarly = false;
  if (allEarly) return true;
  // The next base holds the file's records by partition, then in the file's order.
  const order = rows.map((_, k) => k).sort((a, b) => (rows[a]!.partition < rows[b]!.partition ? -1 : rows[a]!.partition > rows[b]!.partition ? 1 : a - b));
  const base = new StoreLines(order.map((k) => ({ id: rows[k]!.id, partition: rows[k]!.partition, line: lineOf(rows[k]!) })), args.log);
  const memo = new Map<string, string>();
  for (const row of rows) if (row.early) memo.set(row.key, row.id);
  const curr = slots.map((slot) => {
    const id = memo.get(slot.key);
    return id === undefined ? slot.record ?? slot.build() : new code.KnownRecord(id, slot);
  });
  let again;
  try {
    again = code.reconcileWithBase({ agentId: args.agentId, base, curr, withLines: false });
  } catch {
    return false;
  }
  if (again.entries.length > 0) return false;
  return again.records.every((out, j) => {
    const row = rows[j]!;
    if (out.id !== row.id) return false;
    // Paired early: with its own line (ids are distinct), which is the row's.
    if (again.paired[j]! >= 0) return true;
    const line = row.line;
    return line instanceof Uint8Array && Buffer.from(recordJson(out), 'utf8').equals(line);
  });
}

function lineOf(row: NextRow): Buffer | { off: number; len: number } {
  const line = row.line;
  return line instanceof Uint8Array ? Buffer.from(line.buffer, line.byteOffset, line.byteLength) : line;
}
