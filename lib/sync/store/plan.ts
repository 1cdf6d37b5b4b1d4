/**
 * Which files a sync with a client-state store reconciles, and that reconcile. Reconcile pairs
 * records within their source file (CONTRACT §5: P1 and P2 are scoped by `origin_file`; P0 and P3
 * match ids, and an OpenClaw record's id is minted from its file — its birth id names the file, a
 * re-mint names its scope, a carried id is one its file's record had), so the records of a file
 * whose export is the same as last time, and that was stable then (stable.ts), come out of it
 * unchanged: that file is skipped. The rest are reconciled against their own records of the base,
 * in the base's order (partition, then the last sync's order of files, then each file's own),
 * which gives the same pairs, operations and order as reconciling everything.
 *
 * Within a file reconciled, a section identical to one of the last sync's (section-keys.ts: the
 * key taken over) whose row paired early is carried: its record is that row's line, unchanged,
 * exactly as reconcileKnown would claim it (its known record pairs with its own line first thing)
 * — so it gets no slot, its row is not even parsed (the next table takes the row's bytes), and its
 * line is left out of the base with its id reserved.
 *
 * So is one whose row did not pair early (its id is not its birth id: it was edited once, under
 * the same heading, and P2 kept its id), when its trimmed content is no other section's in the
 * file, now or last time (`alone`). The file's rows hold the trimmed contents its sections had,
 * one row each (P0 and P1 carry a content trimmed the same, the other passes keep the section's),
 * and every id in them was minted for that file (a birth id names its file, a re-mint its scope;
 * P0 to P3 keep a previous id of the same file — a base taken over with ids minted otherwise is
 * the exception). So P0 pairs neither that row (no other section has its content, and the
 * section's own id is not the row's) nor the section (no other row has its content), and P1's
 * queue for the file and that content holds the two alone: they pair, and carry_identity of the
 * row and the section's record (the section's fields from the record, the rest from the row) is
 * the row's line, however the row was paired when it was written (P0, P1: carry_identity; P2,
 * P3: the record with the row's id and birth; P4: the record). Left out, neither changes what the
 * passes do with the others.
 *
 * A 1% edit of a large store changes ~1.5 of a file's 100 sections: the work is per section that
 * changed, not per section of the files that did. Not carried: a file with a record built that
 * has a carried row's id (that row must go into the reconcile: reconcileKnown hands such a known
 * record in), and one candidate in SPOT_CHECK (it goes in as a known record, which reconcileKnown
 * may spot-check).
 */
import type { ExportedFile } from '@/lib/adapters/openclaw/export-changes';
import type { RecordSlot } from '@/lib/adapters/types';
import { SPOT_CHECK } from '../record-memo';
import { idsOnDemand } from './ids-on-demand';
import type { IndexFile } from './index-file';
import type { OpenStore } from './open-store';
import type { BaseLine } from './reconcile-known';
import type { TableRow, TableView } from './table';

/** A reconciled file's sections carried over: per section, the row of its table it is, else -1. */
export interface CarriedRows {
  rows: Int32Array;
  /** Per section: carried (no slot). */
  skip: Uint8Array;
  /** Per row of the table: carried. */
  old: Uint8Array;
  view: TableView;
  /** Whether `id` is one of these carried rows' (the set made on the first question). */
  hasId(id: string): boolean;
}

export interface FilePlan {
  /** Record-bearing files of this export, in the order of its records. */
  ordered: ExportedFile[];
  /** Those reconciled (the others are skipped: unchanged and stable). */
  reconciled: Set<string>;
  /** The base's records of the reconciled files and of record-bearing files gone, in the base's order. */
  lines: BaseLine[];
  /** Per reconciled file, `key → line` of its records that paired early last time (the record memo). */
  memo: Map<string, Map<string, number>>;
  /** The reconciled files whose sections are carried over in part. */
  carried: Map<string, CarriedRows>;
  /** Whether `id` is a carried row's: reserved, as a claimed line's is (the set made on the first question). */
  carriedId: (id: string) => boolean;
}

type PlannedLine = BaseLine & { key: string; early: boolean };

export function planFiles(store: OpenStore, files: readonly ExportedFile[]): FilePlan {
  // Stably by the instant their records' created_at is (the export's order of records): ms, then
  // ns within the ms, as the export gives them (numbers: bigint arithmetic costs more).
  const ordered = files.filter((f) => f.records).map((file, index) => ({ file, index }))
    .sort((a, b) => a.file.sortMs - b.file.sortMs || a.file.sortNs - b.file.sortNs || a.index - b.index).map((x) => x.file);
  const reconciled = new Set<string>();
  for (const f of ordered) if (!skipped(f, store.byRel.get(f.rel))) reconciled.add(f.rel);
  const carried = carriedRows(store, ordered.filter((f) => reconciled.has(f.rel)));
  const current = new Set(ordered.map((f) => f.rel));
  // The base's record-bearing files in their order (the index lists them first, in the last export's order).
  const priorFiles = store.index.files.filter((f) => f.table !== null);
  // In the base's order: by partition, then file, then row — the files and rows are walked in that
  // order, so a bucket per partition (in the order of the partitions' names) is that order.
  const byPartition = new Map<string, PlannedLine[]>();
  for (const prior of priorFiles) {
    if (current.has(prior.rel) && !reconciled.has(prior.rel)) continue;
    const add = (row: TableRow) => {
      let bucket = byPartition.get(row.partition);
      if (!bucket) byPartition.set(row.partition, (bucket = []));
      bucket.push({ id: row.id, partition: row.partition, line: row.line, rel: prior.rel, key: row.key, early: row.early });
    };
    const carry = carried.get(prior.rel);
    if (carry) {
      for (let k = 0; k < carry.view.length; k++) if (!carry.old[k]) add(carry.view.row(k));
    } else {
      for (const row of store.table(prior.rel)) add(row);
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
  const carriedId = (id: string) => {
    for (const carry of carried.values()) if (carry.hasId(id)) return true;
    return false;
  };
  return { ordered, reconciled, lines, memo, carried, carriedId };
}

/** The sections of the files reconciled that are carried over (see the top of this file). */
function carriedRows(store: OpenStore, files: readonly ExportedFile[]): Map<string, CarriedRows> {
  const out = new Map<string, CarriedRows>();
  let candidates = 0;
  for (const file of files) {
    // Only a file read now and keyed with its previous keying has sections known identical.
    if (file.bytes === null || !store.byRel.get(file.rel)?.table) continue;
    const keyed = file.keyed();
    const { taken, alone } = keyed;
    if (taken === null || alone === null) continue;
    const view = store.view(file.rel);
    if (view === null) continue;
    const rows = new Int32Array(taken.length).fill(-1);
    const skip = new Uint8Array(taken.length);
    const old = new Uint8Array(view.length);
    let any = false;
    for (let i = 0; i < taken.length; i++) {
      const k = taken[i]!;
      if (k < 0 || !(view.early(k) || alone(i)) || candidates++ % SPOT_CHECK === 0) continue;
      rows[i] = k;
      skip[i] = 1;
      old[k] = 1;
      any = true;
    }
    if (!any) continue;
    // A record built for another section with a carried row's id: that row must go into the reconcile.
    let clash = false;
    for (let i = 0; i < taken.length && !clash; i++) {
      if (skip[i]) continue;
      const k = view.rowOfId(keyed.birthId(i));
      clash = k >= 0 && old[k] === 1;
    }
    if (clash) continue;
    const hasId = idsOnDemand((add) => {
      for (let k = 0; k < view.length; k++) if (old[k]) add(view.row(k).id);
    });
    out.set(file.rel, { rows, skip, old, view, hasId });
  }
  return out;
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
  /** `carried`: its sections carried over (they have no slot), if any. */
  files: { file: ExportedFile; from: number; to: number; carried: CarriedRows | undefined }[];
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
    const carried = plan.carried.get(file.rel);
    for (const slot of file.keyed().slots((key) => memo?.has(key) === true, carried?.skip)) {
      slots.push(slot);
      known.push(slot.record ? -1 : memo?.get(slot.key) ?? -1);
    }
    files.push({ file, from, to: slots.length, carried });
  }
  return { slots, files, known: Int32Array.from(known) };
}

