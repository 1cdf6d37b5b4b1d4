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
import type { RecordSlot } from '@/lib/adapters/types';
import type { IndexFile, Ref } from './index-file';
import type { OpenStore } from './open-store';
import type { BaseLine } from './reconcile-known';

export interface FilePlan {
  /** Record-bearing files of this export, in the order of its records. */
  ordered: ExportedFile[];
  /** Those reconciled (the others are skipped: unchanged and stable). */
  reconciled: Set<string>;
  /** The base's records of the reconciled files and of record-bearing files gone, in the base's order. */
  lines: BaseLine[];
  /** Per reconciled file, `key → line` of its records that paired early last time (the record memo). */
  memo: Map<string, Map<string, number>>;
}

type PlannedLine = BaseLine & { key: string; early: boolean };

export function planFiles(store: OpenStore, files: readonly ExportedFile[]): FilePlan {
  // Stably by the instant their records' created_at is (the export's order of records): ms, then
  // ns within the ms, as the export gives them (numbers: bigint arithmetic costs more).
  const ordered = files.filter((f) => f.records).map((file, index) => ({ file, index }))
    .sort((a, b) => a.file.sortMs - b.file.sortMs || a.file.sortNs - b.file.sortNs || a.index - b.index).map((x) => x.file);
  const reconciled = new Set<string>();
  for (const f of ordered) if (!skipped(f, store.byRel.get(f.rel))) reconciled.add(f.rel);
  const current = new Set(ordered.map((f) => f.rel));
  // The base's record-bearing files in their order (the index lists them first, in the last export's order).
  const priorFiles = store.index.files.filter((f) => f.table !== null);
  // In the base's order: by partition, then file, then row — the files and rows are walked in that
  // order, so a bucket per partition (in the order of the partitions' names) is that order.
  const byPartition = new Map<string, PlannedLine[]>();
  for (const prior of priorFiles) {
    if (current.has(prior.rel) && !reconciled.has(prior.rel)) continue;
    for (const row of store.table(prior.rel)) {
      let bucket = byPartition.get(row.partition);
      if (!bucket) byPartition.set(row.partition, (bucket = []));
      bucket.push({ id: row.id, partition: row.partition, line: row.line, rel: prior.rel, key: row.key, early: row.early });
    }
  }
  const lines = [...byPartition.keys()].sort().flatMap((partition) => byPartition.get(partition)!);
  const memo = new Map<string, Map<string, number>>();
  lines.forEach((line, i) => {
    if (!line.early || !reconciled.has(line.rel)) return;
    let keys = memo.get(line.rel);
    if (!keys) memo.set(line.rel, (keys = new Map()));
    keys.set(line.key, i);
  });
  return { ordered, reconciled, lines, memo };
}

/** Unchanged (not opened, or read with the same digest and mtime) and stable last time. */
function skipped(file: ExportedFile, prior: IndexFile | undefined): boolean {
  if (prior?.kind !== 's') return false;
  if (file.bytes === null) return true;
  return file.stat !== null && file.stat.digest !== null && file.stat.digest === prior.digest && file.stat.mtimeNs === prior.stat.mtimeNs;
}

/** The slots of the files reconciled, in export order; where each file's are; the base line each is known to pair with. */
export interface PlannedSlots {
  slots: RecordSlot[];
  files: { file: ExportedFile; from: number; to: number }[];
  known: Int32Array;
}

export function plannedSlots(plan: FilePlan): PlannedSlots {
  const slots: RecordSlot[] = [];
  const files: PlannedSlots['files'] = [];
  const known: number[] = [];
  for (const file of plan.ordered) {
    if (!plan.reconciled.has(file.rel)) continue;
    const memo = plan.memo.get(file.rel);
    const from = slots.length;
    for (const slot of file.keyed().slots((key) => memo?.has(key) === true)) {
      slots.push(slot);
      known.push(slot.record ? -1 : memo?.get(slot.key) ?? -1);
    }
    files.push({ file, from, to: slots.length });
  }
  return { slots, files, known: Int32Array.from(known) };
}

