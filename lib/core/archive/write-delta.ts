import { isJsonObject, type JsonObject } from '../json';
import { asMemoryRecord, orderRecordFields, RecordShapeError } from '../record';
import { fileNameProblem } from './entry-names';
import { DELTA_MEMORY_FILE } from './read-delta';
import { DELTA_MANIFEST_FILE } from './read-snapshot';
import { ArchiveError, LAYER_FILES, type AlfDelta, type ArchiveLimits, type DeltaEntry } from './types';
import { jsonDocument, utf8, writeZip, type ZipEntry } from './zip-write';

const DELTA_LAYERS = ['credentials', 'identity', 'principals'] as const;
const RAW_PATH = /^raw\/[^/]+\/./;

/**
 * Writes a `.alf-delta` in the reference order (CONTRACT §3.2): `memory/delta.jsonl`,
 * credentials, identity, principals, changed raw files (sorted), `delta-manifest.json`
 * last. `changes.memory`, `changes.raw` and the layer entries of `changes` are made
 * to match the content; every other manifest key is kept as given.
 */
export async function writeDelta(delta: AlfDelta): Promise<Uint8Array> {
  return (await writeDeltaRead(delta)).bytes;
}

/**
 * A delta as writeDelta wrote it, for an ingest in the same process that defers its fold (a local
 * sync's: lib/ledger/ingest.ts): what a reader of the bytes would check — the manifest with its
 * `changes` as written, the entries, layers and raw files — and what the archive limits look at.
 */
export interface WrittenDelta {
  delta: AlfDelta;
  /** The archive's members, and each one's uncompressed size. */
  members: number;
  sizes: number[];
  /** The longest line of `memory/delta.jsonl`, in bytes. */
  longestLine: number;
}

/** Whether a reader with these limits reads the written archive (else the reader says why not): a delta's or a snapshot's. */
export function writtenWithin(written: Pick<WrittenDelta, 'members' | 'sizes' | 'longestLine'>, limits: ArchiveLimits): boolean {
  let total = 0;
  for (const size of written.sizes) {
    if (size > limits.maxEntryUncompressedBytes) return false;
    total += size;
  }
  return written.members <= limits.maxEntries && total <= limits.maxTotalUncompressedBytes && written.longestLine <= limits.maxLineBytes;
}

/** writeDelta's bytes, and the delta as they hold it (`WrittenDelta`). */
export async function writeDeltaRead(delta: AlfDelta): Promise<{ bytes: Uint8Array; written: WrittenDelta }> {
  checkEntries(delta.entries);
  const changed = checkedRawPaths([...delta.rawChanged.keys()], 'changed');
  const deleted = checkedRawPaths(delta.rawDeleted, 'deleted');
  const both = deleted.find((name) => delta.rawChanged.has(name));
  if (both !== undefined) throw new ArchiveError('bad_manifest', `cannot write: raw path ${JSON.stringify(both)} is both changed and deleted`);
  const entries: ZipEntry[] = [];
  const lines = deltaLines(delta.entries);
  if (delta.entries.length > 0) entries.push({ name: DELTA_MEMORY_FILE, data: lines.data });
  for (const layer of DELTA_LAYERS) {
    const doc = delta.layers[layer];
    if (doc) entries.push({ name: LAYER_FILES[layer], data: jsonDocument(doc) });
  }
  for (const name of changed) entries.push({ name, data: delta.rawChanged.get(name)! });
  const manifest: JsonObject = { ...delta.manifest, changes: buildChanges(delta, changed, deleted) };
  entries.push({ name: DELTA_MANIFEST_FILE, data: jsonDocument(manifest) });
  const written = { delta: { ...delta, manifest, manifestFile: DELTA_MANIFEST_FILE }, members: entries.length, sizes: entries.map((e) => e.data.byteLength), longestLine: lines.longest };
  return { bytes: await writeZip(entries), written };
}

function checkEntries(entries: readonly DeltaEntry[]): void {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (!['create', 'update', 'delete'].includes(entry.operation)) {
      throw new ArchiveError('bad_record', `cannot write entries[${index}]: unknown operation ${JSON.stringify(entry.operation)}`);
    }
    try {
      asMemoryRecord(entry.record, `entries[${index}].record`);
    } catch (err) {
      if (err instanceof RecordShapeError) throw new ArchiveError('bad_record', `cannot write ${err.message}`);
      throw err;
    }
    if (seen.has(entry.record.id)) {
      throw new ArchiveError('duplicate_record_id', `cannot write: record id ${entry.record.id} appears twice in the delta`);
    }
    seen.add(entry.record.id);
  });
}

/** Sorted, de-duplicated raw paths, each `raw/<runtime>/<path>` and safe. */
function checkedRawPaths(paths: readonly string[], kind: string): string[] {
  const sorted = [...new Set(paths)].sort();
  for (const path of sorted) {
    const problem = fileNameProblem(path) ?? (RAW_PATH.test(path) ? null : 'expected raw/<runtime>/<path>');
    if (problem) throw new ArchiveError('unsafe_path', `cannot write ${kind} raw path ${JSON.stringify(path)}: ${problem}`);
  }
  return sorted;
}

/** Each line: `{"operation":…}` first, then the record in schema field order. */
function deltaLines(entries: readonly DeltaEntry[]): { data: Uint8Array; longest: number } {
  let longest = 0;
  const lines = entries.map(({ operation, record }) => {
    const { operation: _shadowed, ...fields } = orderRecordFields(record);
    const body = JSON.stringify(fields);
    const head = `{"operation":${JSON.stringify(operation)}`;
    const line = body === '{}' ? `${head}}` : `${head},${body.slice(1)}`;
    // Its UTF-8 length: at most 3 bytes per UTF-16 unit (measured only when that could matter).
    longest = Math.max(longest, line.length * 3 > longest ? Buffer.byteLength(line, 'utf8') : 0);
    return `${line}\n`;
  });
  return { data: utf8(lines.join('')), longest };
}

function buildChanges(delta: AlfDelta, changed: string[], deleted: string[]): JsonObject {
  const previous = isJsonObject(delta.manifest.changes) ? delta.manifest.changes : {};
  const changes: JsonObject = { ...previous };
  for (const layer of DELTA_LAYERS) {
    const prior = previous[layer];
    if (delta.layers[layer]) changes[layer] = { ...(isJsonObject(prior) ? prior : {}), file: LAYER_FILES[layer] };
    else delete changes[layer];
  }
  // CONTRACT §3.2 `changes.identity.new_version`: the version of the identity the delta carries
  // (a u32 there; a document whose version is not one keeps what the manifest said).
  const version = delta.layers.identity?.version;
  if (isJsonObject(changes.identity) && typeof version === 'number' && Number.isInteger(version) && version >= 0 && version <= 0xffff_ffff) {
    changes.identity = { ...changes.identity, new_version: version };
  }
  const priorMemory = previous.memory;
  if (delta.entries.length > 0) {
    changes.memory = { ...(isJsonObject(priorMemory) ? priorMemory : {}), file: DELTA_MEMORY_FILE, record_count: delta.entries.length };
  } else delete changes.memory;
  if (changed.length === 0 && deleted.length === 0) delete changes.raw;
  else {
    const raw: JsonObject = { ...(isJsonObject(previous.raw) ? previous.raw : {}) };
    delete raw.changed;
    delete raw.deleted;
    if (changed.length > 0) raw.changed = changed;
    if (deleted.length > 0) raw.deleted = deleted;
    changes.raw = raw;
  }
  return changes;
}
