import type { AlfDelta, AlfSnapshot } from './archive/types';
import { applyDelta } from './delta';
import { isJsonObject, type JsonObject } from './json';

export interface SequencedDelta {
  sequence: number;
  delta: AlfDelta;
}

/**
 * The restore fold of CONTRACT §6: a snapshot plus the deltas after it, in order. Records follow
 * apply_delta, layer documents carried by a delta replace the base's, and raw files are overlaid
 * byte-exact (deleted paths removed, then changed paths written). The resulting manifest carries
 * `sync.last_sequence` = the highest sequence folded in, which never falls below the snapshot's own.
 */
export function foldSnapshot(args: {
  base: AlfSnapshot;
  baseSequence: number;
  deltas: readonly SequencedDelta[];
  now: Date;
}): AlfSnapshot {
  const { base, deltas } = args;
  let records = base.records;
  const layers = { ...base.layers };
  const raw = new Map(base.raw);
  let sequence = Math.max(manifestSequence(base.manifest), args.baseSequence);

  for (const { sequence: seq, delta } of deltas) {
    records = applyDelta(records, delta.entries);
    for (const [name, doc] of Object.entries(delta.layers)) {
      if (doc) layers[name as keyof typeof delta.layers] = doc;
    }
    for (const path of delta.rawDeleted) raw.delete(path);
    for (const [path, bytes] of delta.rawChanged) raw.set(path, bytes);
    sequence = Math.max(sequence, seq, deltaNewSequence(delta), deltaBaseSequence(delta) + 1);
  }

  const stamp = args.now.toISOString();
  const manifest: JsonObject = { ...base.manifest, created_at: stamp };
  manifest.sync = { ...(isJsonObject(base.manifest.sync) ? base.manifest.sync : {}), last_sequence: sequence, last_sync_at: stamp };
  delete manifest.checksum;
  return { manifest, records, layers, raw, extra: new Map(base.extra) };
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
