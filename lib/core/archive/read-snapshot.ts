import { isJsonObject, type JsonObject } from '../json';
import type { MemoryRecord } from '../record';
import { parseJsonObject } from './json-text';
import { eachRecordOfFile, parseManifest } from './read-common';
import { RecordLines } from './record-lines';
import { ArchiveError, LAYER_FILES, type AlfSnapshot, type ArchiveLimits, type LayerName, type ReadHooks } from './types';
import { readZip, resolveLimits } from './zip-read';

export const MANIFEST_FILE = 'manifest.json';
export const DELTA_MANIFEST_FILE = 'delta-manifest.json';

/**
 * Reads a `.alf` snapshot. Partitions are found through the manifest (either layout of
 * CONTRACT §3.1), `memory/index.json` is never required, and every byte the archive
 * carried lands in `records`, `layers`, `raw` or `extra` so a rewrite loses nothing.
 * `hooks`: handed the manifest's text and each record line's as they are read.
 */
export async function readSnapshot(bytes: Uint8Array, limits?: Partial<ArchiveLimits>, hooks?: ReadHooks): Promise<AlfSnapshot> {
  const caps = resolveLimits(limits);
  return snapshotFromFiles((await readZip(bytes, caps)).files, caps, hooks);
}

/** The snapshot in an archive's members (already unzipped and checked by a zip reader). */
export function snapshotFromFiles(files: Map<string, Uint8Array>, caps: ArchiveLimits, hooks?: ReadHooks): AlfSnapshot {
  const { partitionFiles, ...rest } = snapshotParts(files, hooks);
  const records: MemoryRecord[] = [];
  const line = hooks?.line;
  eachPartitionRecord(files, partitionFiles, caps.maxLineBytes, line === undefined
    ? (record) => records.push(record)
    : (record, index, text) => {
      records.push(record);
      line(text, record, index);
    });
  return { ...rest, records };
}

/**
 * Reads a `.alf` snapshot like {@link readSnapshot} — the same checks, in the same order, so the
 * same first error — but hands each record to `each` as it is read instead of keeping them all:
 * an ingest that only checks a large snapshot's records (its index folded later) does not hold
 * tens of thousands of parsed objects at once. `each` is called in the order `records` would have;
 * it must not throw (a caller that refuses a record remembers that and says so afterwards, as a
 * check after the read would have); it is given the record's JSON line too. `recordCount`: how
 * many records there were. `hooks.manifest`: handed the manifest's text; `hooks.layer`: each layer document's.
 */
export async function scanSnapshot(
  bytes: Uint8Array,
  limits: Partial<ArchiveLimits> | undefined,
  each: (record: MemoryRecord, index: number, line: string) => void,
  hooks?: Pick<ReadHooks, 'manifest' | 'layer'>,
): Promise<Omit<AlfSnapshot, 'records'> & { recordCount: number }> {
  const caps = resolveLimits(limits);
  const { files } = await readZip(bytes, caps);
  const { partitionFiles, ...rest } = snapshotParts(files, hooks);
  return { ...rest, recordCount: eachPartitionRecord(files, partitionFiles, caps.maxLineBytes, each) };
}

/** A snapshot whose memory records stay JSONL lines until asked for (see {@link RecordLines}). */
export interface SnapshotWithLines extends Omit<AlfSnapshot, 'records'> {
  records: RecordLines;
}

/**
 * Reads a `.alf` snapshot like {@link readSnapshot}, but leaves its records as lines: every
 * line's length and UTF-8 are checked here, a record's JSON and shape when it is parsed, and
 * duplicate ids by whoever has every id ({@link RecordLines.assertUniqueIds}).
 */
export async function readSnapshotLines(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): Promise<SnapshotWithLines> {
  const caps = resolveLimits(limits);
  const { files } = await readZip(bytes, caps);
  const { partitionFiles, ...rest } = snapshotParts(files);
  return { ...rest, records: RecordLines.read(partitionFiles.map((file) => ({ file, bytes: files.get(file)! })), caps.maxLineBytes) };
}

/** Everything of a snapshot but its records, and the partition files that hold them. */
function snapshotParts(files: Map<string, Uint8Array>, hooks?: Pick<ReadHooks, 'manifest' | 'layer'>): Omit<AlfSnapshot, 'records'> & { partitionFiles: string[] } {
  const manifestBytes = files.get(MANIFEST_FILE);
  if (!manifestBytes) {
    const hint = files.has(DELTA_MANIFEST_FILE) ? ' (this is a .alf-delta, not a snapshot)' : '';
    throw new ArchiveError('missing_manifest', `archive has no ${MANIFEST_FILE}${hint}`);
  }
  const manifest = parseManifest(manifestBytes, MANIFEST_FILE, hooks);
  const partitionFiles = locatePartitions(manifest, files);
  const layers = readLayers(files, hooks?.layer);
  const consumed = new Set<string>([MANIFEST_FILE, ...partitionFiles, ...Object.values(LAYER_FILES)]);
  const raw = new Map<string, Uint8Array>();
  const extra = new Map<string, Uint8Array>();
  for (const [name, data] of files) {
    if (consumed.has(name)) continue;
    (name.startsWith('raw/') ? raw : extra).set(name, data);
  }
  return { manifest, layers, raw, extra, partitionFiles };
}

/** Partition files named by the manifest, else every `.jsonl` under `memory/` (sorted). */
function locatePartitions(manifest: JsonObject, files: Map<string, Uint8Array>): string[] {
  const listed = listedPartitions(manifest);
  if (listed.length === 0) {
    return [...files.keys()].filter((name) => name.startsWith('memory/') && name.endsWith('.jsonl')).sort();
  }
  for (const file of listed) {
    if (!files.has(file)) {
      throw new ArchiveError('bad_manifest', `${MANIFEST_FILE}: partition ${JSON.stringify(file)} is listed but not in the archive`);
    }
  }
  return listed;
}

function listedPartitions(manifest: JsonObject): string[] {
  const layers = manifest.layers;
  const memory = isJsonObject(layers) ? layers.memory : undefined;
  const partitions = isJsonObject(memory) ? memory.partitions : undefined;
  if (partitions === undefined || partitions === null) return [];
  if (!Array.isArray(partitions)) throw new ArchiveError('bad_manifest', `${MANIFEST_FILE}: layers.memory.partitions is not an array`);
  const files = partitions.map((partition, index) => {
    if (!isJsonObject(partition) || typeof partition.file !== 'string') {
      throw new ArchiveError('bad_manifest', `${MANIFEST_FILE}: layers.memory.partitions[${index}].file is not a string`);
    }
    if (partition.file.startsWith('raw/') || partition.file === MANIFEST_FILE) {
      throw new ArchiveError('bad_manifest', `${MANIFEST_FILE}: partition file ${JSON.stringify(partition.file)} is not a memory file`);
    }
    return partition.file;
  });
  const duplicate = files.find((file, index) => files.indexOf(file) !== index);
  if (duplicate !== undefined) {
    throw new ArchiveError('bad_manifest', `${MANIFEST_FILE}: partition ${JSON.stringify(duplicate)} is listed twice`);
  }
  return files;
}

/** Each record of the partitions, in order, ids checked unique; returns how many. */
function eachPartitionRecord(files: Map<string, Uint8Array>, partitionFiles: string[], maxLineBytes: number, each: (record: MemoryRecord, index: number, line: string) => void): number {
  // Where each record was read (file, line), kept as numbers: a description string is built only
  // for the error that names both sightings of a duplicate id.
  const firstSeen = new Map<string, number>();
  const fileOf: number[] = [];
  const lineOf: number[] = [];
  partitionFiles.forEach((file, fileIndex) => {
    eachRecordOfFile(files.get(file)!, file, maxLineBytes, (line, record, text) => {
      const first = firstSeen.get(record.id);
      if (first !== undefined) {
        const where = `${partitionFiles[fileOf[first]!]} line ${lineOf[first]}`;
        throw new ArchiveError('duplicate_record_id', `record id ${record.id} appears twice: ${where} and ${file} line ${line}`);
      }
      firstSeen.set(record.id, fileOf.length);
      fileOf.push(fileIndex);
      lineOf.push(line);
      each(record, fileOf.length - 1, text);
    });
  });
  return fileOf.length;
}

function readLayers(files: Map<string, Uint8Array>, seen?: ReadHooks['layer']): AlfSnapshot['layers'] {
  const layers: AlfSnapshot['layers'] = {};
  for (const [layer, file] of Object.entries(LAYER_FILES) as [LayerName, string][]) {
    const bytes = files.get(file);
    if (bytes) layers[layer] = parseJsonObject(bytes, file, 'bad_manifest', seen && ((text, value) => seen(layer, text, value)));
  }
  return layers;
}
