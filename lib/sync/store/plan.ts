/**
 * Which files a sync with a client-state store reconciles, and that reconcile. Reconcile pairs
 * records within their source file (CONTRACT §5: P1 and P2 are scoped by `origin_file`; P0 and P3
 * match ids, and an OpenClaw record's id is minted from its file — its birth id names the file, a
 * re-mint names its scope, a carried id is one its file's record had), so the records of a file
 * whose export is the same as last time, and that was stable then (stable.ts), come out of it
 * unchanged: that file is skipped. The rest are reconciled against their own records of the base,
 * in the base's order (partition, then the last sync's order of files, then each file's own),
 * which gives the same pairs, operations and order as reconciling everything.
 */
import type { ExportedFile } from '@/lib/adapters/openclaw/export-changes';
import { sortByInstant } from '@/lib/adapters/openclaw/records';
import type { RecordSlot } from '@/lib/adapters/types';
import type { MemoryRecord } from '@/lib/core/record';
import type { BaseReconcileResult, KnownRecord as KnownRecordClass, KnownRecordMismatch as MismatchClass, reconcileWithBase as reconcileFn } from '@/lib/core/reconcile-base';
import { SPOT_CHECK } from '../record-memo';
import { StoreLines, type StoreLine } from './base-lines';
import type { IndexFile } from './index-file';
import type { OpenStore } from './open-store';

export interface FilePlan {
  /** Record-bearing files of this export, in the order of its records. */
  ordered: ExportedFile[];
  /** Those reconciled (the others are skipped: unchanged and stable). */
  reconciled: Set<string>;
  /** The base's lines of the reconciled files and of record-bearing files gone, in the base's order. */
  base: StoreLines;
  /** Per base line, its file and row: what its line is in the log. */
  baseRows: { rel: string; row: number }[];
  /** `key → id` of the records of those files that paired early last time (the record memo). */
  memo: Map<string, string>;
}

export function planFiles(store: OpenStore, files: readonly ExportedFile[]): FilePlan {
  const ordered = sortByInstant(files.filter((f) => f.records), (f) => f.createdAt);
  const reconciled = new Set<string>();
  for (const f of ordered) if (!skipped(f, store.byRel.get(f.rel))) reconciled.add(f.rel);
  const current = new Set(ordered.map((f) => f.rel));
  // The base's record-bearing files in their order (the index lists them first, in the last export's order).
  const priorFiles = store.index.files.filter((f) => f.table !== null);
  const lines: (StoreLine & { rel: string; row: number; file: number })[] = [];
  const memo = new Map<string, string>();
  priorFiles.forEach((prior, position) => {
    if (current.has(prior.rel) && !reconciled.has(prior.rel)) return;
    store.table(prior.rel).forEach((row, k) => {
      lines.push({ id: row.id, partition: row.partition, line: row.line, rel: prior.rel, row: k, file: position });
      if (row.early && reconciled.has(prior.rel)) memo.set(row.key, row.id);
    });
  });
  lines.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : a.file - b.file || a.row - b.row));
  return { ordered, reconciled, base: new StoreLines(lines, store.log), baseRows: lines.map(({ rel, row }) => ({ rel, row })), memo };
}

/** Unchanged (not opened, or read with the same digest and mtime) and stable last time. */
function skipped(file: ExportedFile, prior: IndexFile | undefined): boolean {
  if (prior?.kind !== 's') return false;
  if (file.bytes === null) return true;
  return file.stat !== null && file.stat.digest !== null && file.stat.digest === prior.digest && file.stat.mtimeNs === prior.stat.mtimeNs;
}

export interface ReconcileWork {
  KnownRecord: typeof KnownRecordClass;
  KnownRecordMismatch: typeof MismatchClass;
  reconcileWithBase: typeof reconcileFn;
}

/**
 * reconcileWithBase of the reconciled files' slots: those whose key the memo knows go as known
 * records (one in SPOT_CHECK built and checked; a mismatch builds them all and runs again).
 */
export function reconcilePlanned(code: ReconcileWork, args: { agentId: string; plan: FilePlan; slots: readonly RecordSlot[] }): BaseReconcileResult {
  const { plan, slots } = args;
  let known = 0;
  const curr = slots.map((slot): MemoryRecord | KnownRecordClass => {
    const id = slot.record ? undefined : plan.memo.get(slot.key);
    return id === undefined ? slot.record ?? slot.build() : new code.KnownRecord(id, slot, known++ % SPOT_CHECK === 0);
  });
  try {
    return code.reconcileWithBase({ agentId: args.agentId, base: plan.base, curr, withLines: false });
  } catch (error) {
    if (!(error instanceof code.KnownRecordMismatch)) throw error;
    return code.reconcileWithBase({ agentId: args.agentId, base: plan.base, curr: slots.map((slot) => slot.record ?? slot.build()), withLines: false });
  }
}
