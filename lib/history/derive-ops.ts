/** Derives the effective record operations of a ledger entry against the indexed current state. */
import type { PreparedDeltaLine } from './ledger-blob';
import { currentFields, type CurrentRecord, type DerivedOp, type RecordFields } from './index-rows';

/** Fields of a record as currently indexed (for tombstones); by default from its stored JSON. */
export type TombstoneFields = (row: CurrentRecord) => RecordFields;

/**
 * Delta lines, with apply_delta's semantics (CONTRACT §5) so the index always equals the restore
 * fold: a create counts only if the id is not live, an update or delete only if it is; an update
 * that changes nothing is not a version. Deletes carry the indexed previous record as tombstone.
 * `rows`: the current index rows (live or deleted) of the lines' record ids.
 */
export function deriveDeltaOps(
  lines: readonly PreparedDeltaLine[],
  rows: ReadonlyMap<string, CurrentRecord>,
  tombstone: TombstoneFields = currentFields,
): DerivedOp[] {
  const ops: DerivedOp[] = [];
  for (const { operation, fields } of lines) {
    const prev = rows.get(fields.record_id) ?? null;
    const live = prev !== null && prev.deleted_seq === null;
    if (operation === 'create' && !live) {
      ops.push({ op: 'create', fields, prev, moved_from: null });
    } else if (operation === 'update' && live) {
      if (fields.record_json !== prev.record_json) ops.push({ op: 'update', fields, prev, moved_from: null });
    } else if (operation === 'delete' && live) {
      ops.push({ op: 'delete', fields: tombstone(prev), prev, moved_from: null });
    }
  }
  return ops;
}

/**
 * A full snapshot: by id against the live records, with canonical JSON equality. Order: the
 * snapshot's records in archive order (creates and updates), then deletes in birth order.
 * `live`: the live rows in birth order then id; `deleted`: rows of the snapshot's ids that are not live.
 */
export function deriveSnapshotOps(
  records: readonly RecordFields[],
  live: readonly CurrentRecord[],
  deleted: ReadonlyMap<string, CurrentRecord>,
  tombstone: TombstoneFields = currentFields,
): DerivedOp[] {
  const liveById = new Map(live.map((r) => [r.record_id, r]));
  const ops: DerivedOp[] = [];
  const seen = new Set<string>();
  for (const fields of records) {
    seen.add(fields.record_id);
    const prev = liveById.get(fields.record_id);
    if (!prev) ops.push({ op: 'create', fields, prev: deleted.get(fields.record_id) ?? null, moved_from: null });
    else if (prev.record_json !== fields.record_json) ops.push({ op: 'update', fields, prev, moved_from: null });
  }
  for (const prev of liveById.values()) {
    if (!seen.has(prev.record_id)) ops.push({ op: 'delete', fields: tombstone(prev), prev, moved_from: null });
  }
  return ops;
}
