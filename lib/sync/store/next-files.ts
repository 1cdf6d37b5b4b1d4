/**
 * The record-bearing files of the next state, from a sync's reconcile: a file skipped keeps its
 * table and bytes where they are in the log; a file reconciled gets a new table, whose rows point
 * at the base's lines for records that paired early (their line is that line) and at new lines for
 * the others, and is tried for stability (stable.ts). A section carried over (plan.ts) keeps its
 * row as it is: the next table takes that row's bytes.
 */
import { partitionFileOf } from '@/lib/core/archive/partitions';
import { recordJson } from '@/lib/core/record';
import type { OpenStore } from './open-store';
import type { FilePlan, PlannedSlots } from './plan';
import type { KnownReconcile, ReconcileCode } from './reconcile-known';
import { isStable } from './stable';
import type { NextFile, NextRow } from './write-state';

export function nextRecordFiles(code: ReconcileCode, args: { agentId: string; store: OpenStore; plan: FilePlan; slots: PlannedSlots; reconciled: KnownReconcile }): NextFile[] {
  const { store, plan, reconciled } = args;
  const planned = new Map(args.slots.files.map((f) => [f.file.rel, f]));
  return plan.ordered.map((file): NextFile => {
    const prior = store.byRel.get(file.rel);
    const stat = file.stat!;
    const range = planned.get(file.rel);
    if (!range) return { rel: file.rel, stat, digest: prior!.digest, kind: 's', raw: prior!.raw, rows: null, table: { ref: prior!.table!, linesBytes: prior!.linesBytes } };
    const rows: NextRow[] = [];
    for (let j = range.from; j < range.to; j++) {
      const key = args.slots.slots[j]!.key;
      const i = reconciled.paired[j]!;
      if (i >= 0) {
        const base = plan.lines[i]!;
        rows.push({ key, early: true, partition: base.partition, id: base.id, line: base.line });
      } else {
        const record = reconciled.records[j]!;
        rows.push({ key, early: false, partition: partitionFileOf(record), id: record.id, line: Buffer.from(recordJson(record), 'utf8'), record });
      }
    }
    const carried = range.carried;
    // Carried rows paired early, and no record built has their ids (plan.ts): left out of the try, their ids reserved.
    const stable = isStable(code, { agentId: args.agentId, rows, slots: args.slots.slots.slice(range.from, range.to), log: store.log, reserved: carried?.hasId });
    const sameBytes = file.bytes === null || (prior !== undefined && prior.digest === stat.digest);
    const raw = sameBytes ? prior!.raw : file.bytes!;
    if (!carried) return { rel: file.rel, stat, digest: stat.digest, kind: stable ? 's' : 'u', raw, rows };
    // In the file's section order: a carried section's row (its index in the table), else the next of `rows`.
    const entries: (NextRow | number)[] = new Array(carried.rows.length);
    for (let i = 0, j = 0; i < entries.length; i++) entries[i] = carried.rows[i]! >= 0 ? carried.rows[i]! : rows[j++]!;
    return { rel: file.rel, stat, digest: stat.digest, kind: stable ? 's' : 'u', raw, rows: entries, carriedFrom: carried.view, carriedLinesBytes: prior!.linesBytes };
  });
}
