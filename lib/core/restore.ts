import { filesTouchedByRecords, openclawArchivePath, openclawPath, renderFiles, type TouchedRecord } from '@/lib/adapters/openclaw/record-files';
import type { AlfDelta, AlfSnapshot } from './archive/types';
import { applyDelta } from './delta';
import { isJsonObject, type JsonObject } from './json';
import type { MemoryRecord } from './record';

export interface SequencedDelta {
  sequence: number;
  delta: AlfDelta;
}

export interface FoldArgs {
  base: AlfSnapshot;
  baseSequence: number;
  deltas: readonly SequencedDelta[];
  now: Date;
}

/** {@link foldArchives} without the list of reconstructed files. */
export function foldSnapshot(args: FoldArgs): AlfSnapshot {
  return foldArchives(args).snapshot;
}

/**
 * The restore fold of CONTRACT §6: a snapshot plus the deltas after it, in order. Records follow
 * apply_delta, layer documents carried by a delta replace the base's, and raw files are overlaid
 * byte-exact (deleted paths removed, then changed paths written). OpenClaw files a delta changed
 * through its records alone (a record-only delta, as the reference CLI sends) are rendered from
 * the records (`recordOnlyFiles`); `reconstructed` lists the workspace paths whose bytes at the end
 * are such a rendering. The resulting manifest carries `sync.last_sequence` = the highest sequence
 * folded in, which never falls below the snapshot's own.
 */
export function foldArchives(args: FoldArgs): { snapshot: AlfSnapshot; reconstructed: string[] } {
  const { base, deltas } = args;
  let records = base.records;
  const layers = { ...base.layers };
  const raw = new Map(base.raw);
  const reconstructed = new Set<string>();
  // Records by id, kept in step with `records` (apply_delta's rules), so a delta's "before" costs its entries only.
  const byId = new Map(base.records.map((r) => [r.id, r]));
  let sequence = Math.max(manifestSequence(base.manifest), args.baseSequence);

  for (const { sequence: seq, delta } of deltas) {
    const touched = touchedRecords(delta, byId);
    records = applyDelta(records, delta.entries);
    for (const [name, doc] of Object.entries(delta.layers)) {
      if (doc) layers[name as keyof typeof delta.layers] = doc;
    }
    for (const path of delta.rawDeleted) raw.delete(path);
    for (const [path, bytes] of delta.rawChanged) raw.set(path, bytes);
    for (const path of [...delta.rawDeleted, ...delta.rawChanged.keys()]) reconstructed.delete(openclawPath(path) ?? '');
    overlayRecordFiles(raw, reconstructed, delta, touched, records);
    sequence = Math.max(sequence, seq, deltaNewSequence(delta), deltaBaseSequence(delta) + 1);
  }

  const stamp = args.now.toISOString();
  const manifest: JsonObject = { ...base.manifest, created_at: stamp };
  manifest.sync = { ...(isJsonObject(base.manifest.sync) ? base.manifest.sync : {}), last_sequence: sequence, last_sync_at: stamp };
  delete manifest.checksum;
  return { snapshot: { manifest, records, layers, raw, extra: new Map(base.extra) }, reconstructed: [...reconstructed].sort() };
}

/** Each entry's record before and after `delta`; moves `byId` to after it, as apply_delta moves the records. */
function touchedRecords(delta: AlfDelta, byId: Map<string, MemoryRecord>): TouchedRecord[] {
  const touched: TouchedRecord[] = delta.entries.map(({ operation, record }) => ({
    before: byId.get(record.id) ?? null,
    after: operation === 'delete' ? null : record,
  }));
  for (const { operation, record } of delta.entries) {
    if (operation === 'create' && !byId.has(record.id)) byId.set(record.id, record);
    else if (operation === 'update' && byId.has(record.id)) byId.set(record.id, record);
    else if (operation === 'delete') byId.delete(record.id);
  }
  return touched;
}

/** Renders into `raw` the OpenClaw files `delta` changed through its records alone. */
function overlayRecordFiles(
  raw: Map<string, Uint8Array>,
  reconstructed: Set<string>,
  delta: AlfDelta,
  touched: readonly TouchedRecord[],
  after: readonly MemoryRecord[],
): void {
  if (touched.length === 0) return;
  const carried = new Set([...delta.rawDeleted, ...delta.rawChanged.keys()].map(openclawPath).filter((p): p is string => p !== null));
  const files = filesTouchedByRecords(touched, carried);
  if (files.length === 0) return;
  const rendered = renderFiles(files, after, (path) => raw.has(openclawArchivePath(path)));
  for (const path of rendered.deleted) {
    raw.delete(openclawArchivePath(path));
    reconstructed.delete(path);
  }
  for (const [path, bytes] of rendered.changed) {
    const current = raw.get(openclawArchivePath(path));
    // The same bytes as the file already holds: it is left as it was (the index writes no version either).
    if (current && Buffer.from(current).equals(bytes)) continue;
    raw.set(openclawArchivePath(path), bytes);
    reconstructed.add(path);
  }
}

function manifestSequence(manifest: JsonObject): number {
  const sync = manifest.sync;
  return isJsonObject(sync) && typeof sync.last_sequence === 'number' ? sync.last_sequence : 0;
}

function syncField(delta: AlfDelta, key: string): number {
  const sync = delta.manifest.sync;
  const value = isJsonObject(sync) ? sync[key] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

const deltaNewSequence = (delta: AlfDelta) => syncField(delta, 'new_sequence');
const deltaBaseSequence = (delta: AlfDelta) => syncField(delta, 'base_sequence');
