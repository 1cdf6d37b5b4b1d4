import type { DeltaEntry } from './archive/types';
import { jsonEqual } from './json';
import type { MemoryRecord } from './record';

/**
 * Record operations between two record sets, by id (CONTRACT §5): creates in new order,
 * then updates in new order, then deletes (carrying the old record) in old order.
 */
export function computeDelta(oldRecords: readonly MemoryRecord[], newRecords: readonly MemoryRecord[]): DeltaEntry[] {
  const oldById = new Map(oldRecords.map((r) => [r.id, r]));
  const newIds = new Set(newRecords.map((r) => r.id));
  const creates: DeltaEntry[] = [];
  const updates: DeltaEntry[] = [];
  for (const record of newRecords) {
    const before = oldById.get(record.id);
    if (!before) creates.push({ operation: 'create', record });
    else if (!jsonEqual(before, record)) updates.push({ operation: 'update', record });
  }
  const deletes: DeltaEntry[] = oldRecords
    .filter((r) => !newIds.has(r.id))
    .map((record) => ({ operation: 'delete', record }));
  return [...creates, ...updates, ...deletes];
}

/**
 * Applies record operations to a base, preserving its order: a create is appended only when
 * its id is absent, an update replaces in place only when present, a delete removes if present.
 */
export function applyDelta(base: readonly MemoryRecord[], entries: readonly DeltaEntry[]): MemoryRecord[] {
  const slots: (MemoryRecord | null)[] = [...base];
  const index = new Map<string, number>();
  slots.forEach((r, i) => index.set(r!.id, i));
  for (const { operation, record } of entries) {
    const at = index.get(record.id);
    if (operation === 'create' && at === undefined) {
      index.set(record.id, slots.length);
      slots.push(record);
    } else if (operation === 'update' && at !== undefined) {
      slots[at] = record;
    } else if (operation === 'delete' && at !== undefined) {
      slots[at] = null;
      index.delete(record.id);
    }
  }
  return slots.filter((r): r is MemoryRecord => r !== null);
}

export function countOps(entries: readonly DeltaEntry[]): { creates: number; updates: number; deletes: number } {
  const counts = { creates: 0, updates: 0, deletes: 0 };
  for (const e of entries) counts[`${e.operation}s` as const]++;
  return counts;
}

/**
 * The raw channel of a delta: files under `raw/<runtime>/` that are new or byte-different
 * (`changed`), and those present only in the base (`deleted`). Both sorted.
 */
export function diffRaw(
  base: ReadonlyMap<string, Uint8Array>,
  curr: ReadonlyMap<string, Uint8Array>,
  runtime: string,
): { changed: Map<string, Uint8Array>; deleted: string[] } {
  const prefix = `raw/${runtime}/`;
  const own = (path: string) => path.startsWith(prefix) && !path.endsWith('/');
  const changed = new Map<string, Uint8Array>();
  for (const path of [...curr.keys()].filter(own).sort()) {
    const bytes = curr.get(path)!;
    const before = base.get(path);
    // A file the stat cache found unchanged carries the base's own bytes: nothing to compare.
    if (before === bytes) continue;
    if (!before || !sameBytes(before, bytes)) changed.set(path, bytes);
  }
  const deleted = [...base.keys()].filter((p) => own(p) && !curr.has(p)).sort();
  return { changed, deleted };
}

/** Byte equality without copying either side (`Buffer.from(uint8Array)` copies; a view does not). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
