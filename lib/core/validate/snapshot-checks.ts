import { isJsonObject, type JsonObject } from '../json';
import { LAYER_FILES, type LayerName } from '../archive/types';
import { MANIFEST_LEVEL } from '../duplicate-keys';
import { checkLayerDocument, checkManifestDocument, checkRecordFile, parseDocument, type IdSightings } from './documents';
import { checkIdentityAgent, warnAgentIdForm } from './reference-rules';
import { SNAPSHOT_MANIFEST } from './manifest-rules';
import { child, Issues } from './rules';

const MANIFEST = 'manifest.json';

/** Schema and consistency checks of a `.alf` snapshot's contents. */
export function checkSnapshot(files: ReadonlyMap<string, Uint8Array>, issues: Issues, maxLineBytes: number): void {
  if (!files.has(MANIFEST)) return issues.error(MANIFEST, 'missing: a snapshot must carry manifest.json');
  const manifest = checkManifestDocument(files, MANIFEST, 'snapshot', SNAPSHOT_MANIFEST, issues, MANIFEST_LEVEL);
  if (!manifest) return;
  const layers = isJsonObject(manifest.layers) ? manifest.layers : {};
  checkMemory(files, layers, issues, maxLineBytes);
  checkLayers(files, layers, issues);
  checkIdentityAgent(parseDocument(files, LAYER_FILES.identity, new Issues()), manifest, issues);
  warnAgentIdForm(manifest, MANIFEST, issues);
}

function checkMemory(files: ReadonlyMap<string, Uint8Array>, layers: JsonObject, issues: Issues, maxLineBytes: number): void {
  const memory = isJsonObject(layers.memory) ? layers.memory : null;
  const memoryPath = `${MANIFEST}#/layers/memory`;
  const ids: IdSightings = new Map();
  const listed = memory && Array.isArray(memory.partitions) ? memory.partitions : [];
  let total = 0;
  listed.forEach((partition, index) => {
    if (!isJsonObject(partition) || typeof partition.file !== 'string') return;
    const path = child(`${memoryPath}/partitions`, index);
    const bytes = files.get(partition.file);
    if (!bytes) return issues.error(child(path, 'file'), `partition ${JSON.stringify(partition.file)} is not in the archive`);
    const count = checkRecordFile(bytes, partition.file, issues, ids, { delta: false, maxLineBytes });
    total += count;
    if (typeof partition.record_count === 'number' && partition.record_count !== count) {
      issues.error(child(path, 'record_count'), `says ${partition.record_count} but ${partition.file} holds ${count} records`);
    }
  });
  if (listed.length === 0) total = checkUnlistedPartitions(files, issues, ids, maxLineBytes);
  if (memory && typeof memory.record_count === 'number' && memory.record_count !== total) {
    issues.error(`${memoryPath}/record_count`, `says ${memory.record_count} but the partitions hold ${total} records`);
  }
}

/** No partitions listed: readers fall back to every `.jsonl` under `memory/`. */
function checkUnlistedPartitions(
  files: ReadonlyMap<string, Uint8Array>,
  issues: Issues,
  ids: IdSightings,
  maxLineBytes: number,
): number {
  let total = 0;
  for (const [name, bytes] of [...files].filter(([n]) => n.startsWith('memory/') && n.endsWith('.jsonl')).sort()) {
    issues.warn(name, 'memory file is not listed in manifest.json layers.memory.partitions; readers still load it');
    total += checkRecordFile(bytes, name, issues, ids, { delta: false, maxLineBytes });
  }
  return total;
}

const COUNTED: Record<string, string> = { principals: 'principals', credentials: 'credentials', attachments: 'attachments' };

function checkLayers(files: ReadonlyMap<string, Uint8Array>, layers: JsonObject, issues: Issues): void {
  for (const [layer, file] of Object.entries(LAYER_FILES) as [LayerName, string][]) {
    const doc = files.has(file) ? checkLayerDocument(files, layer, issues) : null;
    const inventory = layers[layer];
    if (!isJsonObject(inventory)) continue;
    const path = `${MANIFEST}#/layers/${layer}`;
    if (typeof inventory.file === 'string' && inventory.file !== file) {
      issues.error(`${path}/file`, `${JSON.stringify(inventory.file)} is not ${JSON.stringify(file)}, the only path the ${layer} layer is read from (CONTRACT §3.1)`);
    } else if (typeof inventory.file === 'string' && !files.has(inventory.file)) {
      issues.error(`${path}/file`, `${JSON.stringify(inventory.file)} is not in the archive`);
    }
    const key = COUNTED[layer];
    const list = key && doc ? doc[key] : undefined;
    if (Array.isArray(list) && typeof inventory.count === 'number' && inventory.count !== list.length) {
      issues.warn(`${path}/count`, `says ${inventory.count} but ${file} lists ${list.length}`);
    }
  }
}
