import { isJsonObject, type JsonObject } from '../json';
import { LAYER_FILES, type LayerName } from './types';

/** A delta's memory changes: always `memory/delta.jsonl` (CONTRACT §3.2; our readers and validate default to it). */
export const DELTA_MEMORY_FILE = 'memory/delta.jsonl';

/** The layers a delta manifest's `changes` may name a file for (CONTRACT §3.2). */
const DELTA_LAYERS: readonly LayerName[] = ['identity', 'principals', 'credentials'];

/**
 * What the reference reader could not read in a manifest's layer file references, or null.
 *
 * The reference reader reads a listed layer from the file its manifest names
 * (`layers.X.file` in a snapshot's `manifest.json`, `changes.X.file` in a `delta-manifest.json`),
 * and fails when that file is not in the archive. Writers put each layer at one fixed path
 * (CONTRACT §3.1: `identity.json`, `principals.json`, `credentials.json`, `attachments.json`;
 * §3.2 the same in a delta), and ours — readers, checks, folds, downloads — read only those. So a
 * listed layer must name its fixed path, and that file must be there: any other name would have
 * the reference reader read a document none of our checks saw (or a path outside the archive's).
 *
 * Snapshot: a listed layer's `file` is required (manifest.schema.json); `null` means not listed.
 * Delta: `file` is optional there (delta-manifest.schema.json), so only a given one is checked;
 * `changes.memory.file`, when given, must be `memory/delta.jsonl` (the reader checks it is there).
 * `has(file)`: whether the archive holds `file`. `manifestFile`: the member the manifest was read
 * from, which the problem names (a delta's may be `manifest.json`, CONTRACT §3.2; read-delta.ts
 * `deltaManifestName`); by default `manifest.json` for a snapshot, `delta-manifest.json` for a delta.
 */
export function layerFileProblem(
  manifest: JsonObject, kind: 'snapshot' | 'delta', has: (file: string) => boolean, manifestFile = kind === 'snapshot' ? 'manifest.json' : 'delta-manifest.json',
): string | null {
  const [holderKey, layers] = kind === 'snapshot'
    ? ['layers', Object.keys(LAYER_FILES) as LayerName[]] as const
    : ['changes', DELTA_LAYERS] as const;
  const holder = manifest[holderKey];
  if (!isJsonObject(holder)) return null;
  if (kind === 'delta' && isJsonObject(holder.memory) && typeof holder.memory.file === 'string' && holder.memory.file !== DELTA_MEMORY_FILE) {
    return `${manifestFile}: changes.memory.file ${JSON.stringify(holder.memory.file.slice(0, 200))} is not ${JSON.stringify(DELTA_MEMORY_FILE)}, the only path a delta's memory changes are read from (CONTRACT §3.2)`;
  }
  for (const layer of layers) {
    const entry = holder[layer];
    if (entry === undefined || entry === null) continue;
    const at = `${manifestFile}: ${holderKey}.${layer}`;
    if (!isJsonObject(entry)) return `${at} is not an object`;
    const file = entry.file;
    const fixed = LAYER_FILES[layer];
    if (file === undefined) {
      if (kind === 'delta') continue;
      return `${at}.file is missing`;
    }
    if (typeof file !== 'string') return `${at}.file is not a string`;
    if (file !== fixed) {
      return `${at}.file ${JSON.stringify(file.slice(0, 200))} is not ${JSON.stringify(fixed)}, the only path the ${layer} layer is read from (CONTRACT ${kind === 'snapshot' ? '§3.1' : '§3.2'})`;
    }
    if (!has(fixed)) return `${at}.file ${JSON.stringify(fixed)} is listed but not in the archive`;
  }
  return null;
}
