import { isJsonObject, type JsonObject, type JsonValue } from '../json';
import type { MemoryRecord } from '../record';
import { LAYER_FILES, type AlfSnapshot } from './types';

/** One partition as listed in `manifest.layers.memory.partitions`. */
export interface PartitionInfo extends JsonObject {
  file: string;
  from: string;
  to: string;
  record_count: number;
  sealed: boolean;
}

export const MEMORY_INDEX_FILE = 'memory/index.json';

/**
 * The manifest's `layers` recomputed from what is written (CONTRACT §3.1). Keys the
 * caller's inventory already had — including unknown ones — are kept in place;
 * counts, files and partitions are overwritten; absent layers are removed.
 */
export function recomputeLayers(snapshot: AlfSnapshot, partitions: PartitionInfo[]): JsonObject {
  const previous = isJsonObject(snapshot.manifest.layers) ? snapshot.manifest.layers : {};
  const layers: JsonObject = { ...previous };
  const { identity, principals, credentials, attachments } = snapshot.layers;
  setLayer(layers, 'identity', identity && { version: identityVersion(identity, previous.identity), file: LAYER_FILES.identity });
  setLayer(layers, 'principals', principals && { count: arrayLength(principals, 'principals'), file: LAYER_FILES.principals });
  setLayer(layers, 'credentials', credentials && { count: arrayLength(credentials, 'credentials'), file: LAYER_FILES.credentials });
  setLayer(layers, 'memory', snapshot.records.length > 0 ? memoryInventory(snapshot, partitions) : undefined);
  setLayer(layers, 'attachments', attachments && attachmentsInventory(attachments));
  return layers;
}

function setLayer(layers: JsonObject, key: string, computed: JsonObject | undefined): void {
  if (computed === undefined) {
    delete layers[key];
    return;
  }
  const previous = layers[key];
  layers[key] = { ...(isJsonObject(previous) ? previous : {}), ...computed };
}

function memoryInventory(snapshot: AlfSnapshot, partitions: PartitionInfo[]): JsonObject {
  return {
    record_count: snapshot.records.length,
    index_file: MEMORY_INDEX_FILE,
    partitions,
    has_embeddings: snapshot.records.some(hasEmbeddings),
    has_raw_source: snapshot.raw.size > 0,
  };
}

function hasEmbeddings(record: MemoryRecord): boolean {
  return Array.isArray(record.embeddings) && record.embeddings.length > 0;
}

function identityVersion(identity: JsonObject, previous: JsonValue | undefined): number {
  if (isPositiveInteger(identity.version)) return identity.version;
  if (isJsonObject(previous) && isPositiveInteger(previous.version)) return previous.version;
  return 1;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function arrayLength(doc: JsonObject, key: string): number {
  const list = doc[key];
  return Array.isArray(list) ? list.length : 0;
}

/** Tier 2 (included, `archive_path` set) and Tier 3 (reference-only) totals. */
function attachmentsInventory(doc: JsonObject): JsonObject {
  const items = Array.isArray(doc.attachments) ? doc.attachments.filter(isJsonObject) : [];
  const included = items.filter((item) => typeof item.archive_path === 'string');
  const referenced = items.filter((item) => typeof item.archive_path !== 'string');
  return {
    count: arrayLength(doc, 'attachments'),
    file: LAYER_FILES.attachments,
    included_count: included.length,
    included_size_bytes: sumSizes(included),
    referenced_count: referenced.length,
    referenced_size_bytes: sumSizes(referenced),
  };
}

function sumSizes(items: JsonObject[]): number {
  return items.reduce((total, item) => total + (typeof item.size_bytes === 'number' ? item.size_bytes : 0), 0);
}

/** Runtimes that have files under `raw/<runtime>/`, sorted. */
export function rawSources(raw: ReadonlyMap<string, Uint8Array>): string[] {
  const runtimes = new Set<string>();
  for (const name of raw.keys()) {
    const runtime = name.split('/')[1];
    if (runtime) runtimes.add(runtime);
  }
  return [...runtimes].sort();
}
