/**
 * reconcileWithBase of some files' slots against their base lines, where most slots are known: the
 * record memo says the record of that key pairs early with a given base line, unchanged. Such a
 * slot is not even handed to reconcileWithBase: it would pair with its line first thing (no other
 * extracted record takes that id: a known record's id is its own line's, and none of the records
 * built has it — else it goes in after all), so its line is left out of the base, its id passed
 * as reserved (no create may take it), and its output is that line. What reconcileWithBase then
 * does is the same as with them in, for a fraction of the work. One known record in SPOT_CHECK is
 * handed in anyway, to be built and checked (KnownRecord.verify); a mismatch builds them all and
 * reconciles everything.
 */
import type { RecordSlot } from '@/lib/adapters/types';
import type { DeltaEntry } from '@/lib/core/archive/types';
import type { MemoryRecord } from '@/lib/core/record';
import type { KnownRecord as KnownRecordClass, KnownRecordMismatch as MismatchClass, reconcileWithBase as reconcileFn } from '@/lib/core/reconcile-base';
import { SPOT_CHECK } from '../record-memo';
import { StoreLines } from './base-lines';
import type { Ref } from './index-file';
import { idsOnDemand } from './ids-on-demand';
import type { LogReader } from './log';

export interface BaseLine {
  id: string;
  partition: string;
  /** Where the line is in the log, or its bytes. */
  line: Ref | Buffer;
  /** The file the record came from. */
  rel: string;
  /** The record the line's bytes are `recordJson` of, when the line was just made of it (base-lines.ts `StoreLine.record`). */
  record?: MemoryRecord;
}

export interface ReconcileCode {
  KnownRecord: typeof KnownRecordClass;
  KnownRecordMismatch: typeof MismatchClass;
  reconcileWithBase: typeof reconcileFn;
}

export interface KnownReconcile {
  /**
   * One output per slot handed to reconcileWithBase; undefined for a known one left out (its
   * output is its line, which `paired` names: nothing reads a record of it, so none is made).
   */
  records: (MemoryRecord | undefined)[];
  /** Per slot, the line (of `lines`) it paired early with, else -1. */
  paired: Int32Array;
  entries: DeltaEntry[];
}

export function reconcileKnown(code: ReconcileCode, args: {
  agentId: string;
  /** The base's lines of the files reconciled (and of files gone), in the base's order. */
  lines: readonly BaseLine[];
  slots: readonly RecordSlot[];
  /** Per slot, the line the memo says it pairs early with, else -1. */
  known: Int32Array;
  log: LogReader | null;
  /** Hand one known record in SPOT_CHECK in to be checked (a sync: yes; a stability check: no). */
  spotCheck: boolean;
  /** Ids of base records the caller paired outside (their lines and slots left out): no create may keep one. */
  reserved?: (id: string) => boolean;
}): KnownReconcile {
  try {
    return reconcileLeavingOut(code, args, true);
  } catch (error) {
    if (!(error instanceof code.KnownRecordMismatch)) throw error;
    return reconcileLeavingOut(code, { ...args, known: new Int32Array(args.slots.length).fill(-1) }, false);
  }
}

function reconcileLeavingOut(code: ReconcileCode, args: Parameters<typeof reconcileKnown>[1], spotCheck: boolean): KnownReconcile {
  const { lines, slots, known } = args;
  // Every record the memo does not know is built now: a known one whose id one of them has goes in.
  const built: (MemoryRecord | undefined)[] = slots.map((slot, j) => (known[j]! < 0 ? slot.record ?? slot.build() : undefined));
  const builtIds = new Set<string>();
  for (const record of built) if (record) builtIds.add(record.id);
  const claimed = new Uint8Array(lines.length);
  const curr: (MemoryRecord | KnownRecordClass)[] = [];
  const currSlot: number[] = [];
  const paired = new Int32Array(slots.length).fill(-1);
  let seen = 0;
  slots.forEach((slot, j) => {
    const i = known[j]!;
    if (i < 0) {
      curr.push(built[j]!);
      currSlot.push(j);
      return;
    }
    const id = lines[i]!.id;
    const check = spotCheck && args.spotCheck && seen++ % SPOT_CHECK === 0;
    if (check || builtIds.has(id)) {
      curr.push(new code.KnownRecord(id, slot, check));
      currSlot.push(j);
      return;
    }
    claimed[i] = 1;
    paired[j] = i;
  });
  const kept: number[] = [];
  for (let i = 0; i < lines.length; i++) if (!claimed[i]) kept.push(i);
  const base = new StoreLines(kept.map((i) => lines[i]!), args.log);
  const result = code.reconcileWithBase({ agentId: args.agentId, base, curr, withLines: false, reserved: idsOnDemand((add) => lines.forEach((line, i) => claimed[i] && add(line.id)), args.reserved) });
  const records: (MemoryRecord | undefined)[] = new Array(slots.length);
  currSlot.forEach((j, k) => {
    records[j] = result.records[k]!;
    const i = result.paired[k]!;
    if (i >= 0) paired[j] = kept[i]!;
  });
  return { records, paired, entries: result.entries };
}

