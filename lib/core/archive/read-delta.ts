import { isJsonObject, type JsonObject } from '../json';
import { fileNameProblem } from './entry-names';
import { parseJsonObject, splitJsonLines } from './json-text';
import { lineRecord, parseLineObject, parseManifest, RecordIdRegistry } from './read-common';
import { DELTA_MANIFEST_FILE, MANIFEST_FILE } from './read-snapshot';
import { ArchiveError, LAYER_FILES, type AlfDelta, type ArchiveLimits, type DeltaEntry, type DeltaOperation, type ReadHooks } from './types';
import { readZip, resolveLimits } from './zip-read';

export const DELTA_MEMORY_FILE = 'memory/delta.jsonl';
const OPERATIONS: readonly string[] = ['create', 'update', 'delete'] satisfies DeltaOperation[];

/**
 * Reads a `.alf-delta` (CONTRACT §3.2). The manifest is `delta-manifest.json`, or a
 * `manifest.json` carrying `sync.base_sequence` (spec §4.3 wording). Lines with an
 * unknown `operation` are skipped, as the reference does (a stored delta stays readable); `hooks`:
 * handed the manifest's text, each kept line's, each skipped line's and each layer document's as they are read.
 */
export async function readDelta(bytes: Uint8Array, limits?: Partial<ArchiveLimits>, hooks?: ReadHooks): Promise<AlfDelta> {
  const caps = resolveLimits(limits);
  return deltaFromFiles((await readZip(bytes, caps)).files, caps, hooks);
}

/** The delta in an archive's members (already unzipped and checked by a zip reader). */
export function deltaFromFiles(files: Map<string, Uint8Array>, caps: ArchiveLimits, hooks?: ReadHooks): AlfDelta {
  const { manifest, file: manifestFile } = readDeltaManifest(files, hooks);
  const changes = isJsonObject(manifest.changes) ? manifest.changes : {};
  const entries = readEntries(files, memoryFileOf(changes, files, manifestFile), caps.maxLineBytes, hooks);
  const layers: AlfDelta['layers'] = {};
  for (const layer of ['identity', 'principals', 'credentials'] as const) {
    const data = files.get(LAYER_FILES[layer]);
    const seen = hooks?.layer;
    if (data) layers[layer] = parseJsonObject(data, LAYER_FILES[layer], 'bad_manifest', seen && ((text, value) => seen(layer, text, value)));
  }
  const rawChanged = new Map([...files].filter(([name]) => name.startsWith('raw/')));
  const rawDeleted = deletedRawPaths(changes, manifestFile);
  const both = rawDeleted.find((name) => rawChanged.has(name));
  if (both !== undefined) {
    throw new ArchiveError('bad_manifest', `${manifestFile}: raw path ${JSON.stringify(both)} is both changed and deleted`);
  }
  return { manifest, manifestFile, entries, layers, rawChanged, rawDeleted };
}

/** The member `delta`'s manifest was read from (`delta-manifest.json` when built in memory): what a message about it names. */
export function deltaManifestName(delta: Pick<AlfDelta, 'manifestFile'>): string {
  return delta.manifestFile ?? DELTA_MANIFEST_FILE;
}

function readDeltaManifest(files: Map<string, Uint8Array>, hooks?: ReadHooks): { manifest: JsonObject; file: string } {
  const deltaManifest = files.get(DELTA_MANIFEST_FILE);
  const fallback = files.get(MANIFEST_FILE);
  if (!deltaManifest && !fallback) throw new ArchiveError('missing_manifest', `archive has no ${DELTA_MANIFEST_FILE}`);
  const file = deltaManifest ? DELTA_MANIFEST_FILE : MANIFEST_FILE;
  const manifest = parseManifest((deltaManifest ?? fallback)!, file, hooks);
  const sync = manifest.sync;
  if (!isJsonObject(sync) || sync.base_sequence === undefined) {
    if (!deltaManifest) {
      throw new ArchiveError('missing_manifest', `archive has no ${DELTA_MANIFEST_FILE} (its ${MANIFEST_FILE} is a snapshot manifest)`);
    }
    throw new ArchiveError('bad_manifest', `${file}: sync.base_sequence is missing`);
  }
  if (!isSequence(sync.base_sequence)) {
    throw new ArchiveError('bad_manifest', `${file}: sync.base_sequence must be a non-negative integer`);
  }
  return { manifest, file };
}

function isSequence(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function memoryFileOf(changes: JsonObject, files: Map<string, Uint8Array>, manifestFile: string): string | null {
  const memory = changes.memory;
  const named = isJsonObject(memory) && typeof memory.file === 'string' ? memory.file : null;
  if (named !== null && !files.has(named)) {
    throw new ArchiveError('bad_manifest', `${manifestFile}: changes.memory.file ${JSON.stringify(named)} is not in the archive`);
  }
  if (named !== null) return named;
  return files.has(DELTA_MEMORY_FILE) ? DELTA_MEMORY_FILE : null;
}

function readEntries(files: Map<string, Uint8Array>, file: string | null, maxLineBytes: number, hooks?: ReadHooks): DeltaEntry[] {
  if (file === null) return [];
  const ids = new RecordIdRegistry();
  const entries: DeltaEntry[] = [];
  for (const line of splitJsonLines(files.get(file)!, file, maxLineBytes)) {
    const value = parseLineObject(file, line);
    const { operation, ...rest } = value;
    if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) {
      hooks?.skipped?.(file, line.text, value, line.line);
      continue;
    }
    const record = lineRecord(file, line, rest);
    ids.add(record.id, `${file} line ${line.line}`);
    hooks?.line?.(line.text, value, entries.length);
    entries.push({ operation: operation as DeltaOperation, record });
  }
  return entries;
}

function deletedRawPaths(changes: JsonObject, manifestFile: string): string[] {
  const raw = changes.raw;
  const deleted = isJsonObject(raw) ? raw.deleted : undefined;
  if (deleted === undefined || deleted === null) return [];
  if (!Array.isArray(deleted)) throw new ArchiveError('bad_manifest', `${manifestFile}: changes.raw.deleted is not an array`);
  return deleted.map((path) => {
    if (typeof path !== 'string') throw new ArchiveError('bad_manifest', `${manifestFile}: changes.raw.deleted holds a non-string`);
    const problem = fileNameProblem(path) ?? (/^raw\/[^/]+\/./.test(path) ? null : 'not under raw/<runtime>/');
    if (problem) throw new ArchiveError('unsafe_path', `${manifestFile}: deleted raw path ${JSON.stringify(path)}: ${problem}`);
    return path;
  });
}
