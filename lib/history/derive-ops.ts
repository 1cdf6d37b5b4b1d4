/** Derives the effective record operations of a ledger entry against the indexed current state. */
import type { Drizzle } from '@/db/client';
import type { DeltaEntry } from '@/lib/core/archive/types';
import type { MemoryRecord } from '@/lib/core/record';
import { liveRecordRows, recordRowsById } from './current-state';
import { currentFields, recordFields, type DerivedOp } from './index-rows';

/**
 * Delta entries, with apply_delta's semantics (CONTRACT §5) so the index always equals the restore
 * fold: a create counts only if the id is not live, an update or delete only if it is; an update
 * that changes nothing is not a version. Deletes carry the indexed previous record as tombstone.
 */
export function deriveDeltaOps(db: Drizzle, agentId: string, entries: readonly DeltaEntry[]): DerivedOp[] {
  const rows = recordRowsById(db, agentId, entries.map((e) => e.record.id));
  const ops: DerivedOp[] = [];
  for (const { operation, record } of entries) {
    const prev = rows.get(record.id) ?? null;
    const live = prev !== null && prev.deleted_seq === null;
    if (operation === 'create' && !live) {
      ops.push({ op: 'create', fields: recordFields(record), prev, moved_from: null });
    } else if (operation === 'update' && live) {
      const fields = recordFields(record);
      if (fields.record_json !== prev.record_json) ops.push({ op: 'update', fields, prev, moved_from: null });
    } else if (operation === 'delete' && live) {
      ops.push({ op: 'delete', fields: currentFields(prev), prev, moved_from: null });
    }
  }
  return ops;
}

/**
 * A full snapshot: by id against the live records, with canonical JSON equality. Order: the
 * snapshot's records in archive order (creates and updates), then deletes in birth order.
 */
export function deriveSnapshotOps(db: Drizzle, agentId: string, snapshotRecords: readonly MemoryRecord[]): DerivedOp[] {
  const live = new Map(liveRecordRows(db, agentId).map((r) => [r.record_id, r]));
  const deleted = recordRowsById(db, agentId, snapshotRecords.map((r) => r.id).filter((id) => !live.has(id)));
  const ops: DerivedOp[] = [];
  const seen = new Set<string>();
  for (const record of snapshotRecords) {
    seen.add(record.id);
    const fields = recordFields(record);
    const prev = live.get(record.id);
    if (!prev) ops.push({ op: 'create', fields, prev: deleted.get(record.id) ?? null, moved_from: null });
    else if (prev.record_json !== fields.record_json) ops.push({ op: 'update', fields, prev, moved_from: null });
  }
  for (const prev of live.values()) {
    if (!seen.has(prev.record_id)) ops.push({ op: 'delete', fields: currentFields(prev), prev, moved_from: null });
  }
  return ops;
}
