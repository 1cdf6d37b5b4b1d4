/**
 * What ingest refuses because it could not serve it later (issue 18 §4): an archive the readers
 * accept can still hold things that break a restore, a download or a query afterwards — JSON too
 * deep for SQLite's JSON functions or a recursive walk, a path no file system can hold, a tree where
 * one path is both a file and a directory, two names one file system would take for one, a time no
 * RFC 3339 reader parses, a record id that is not a UUID, a known record field of a JSON type the
 * reference reader refuses (`wrongTypedField`), a NUL character (U+0000) in a record or a
 * path (no text column of PostgreSQL can hold it, a rendered Markdown file should not, and both
 * backends must give the same answer), a known field that comes twice in one object of a record
 * line or a manifest (`ArchiveKeys`: `JSON.parse` keeps the last, the reference reader refuses the
 * archive). Each check throws
 * `LedgerError('bad_archive')` saying what and where, before anything is written.
 */
import { layerFileProblem } from '@/lib/core/archive/layer-refs';
import { LAYER_FILES, type AlfDelta, type AlfSnapshot, type LayerName, type ReadHooks } from '@/lib/core/archive/types';
import {
  DELTA_LINE_LEVEL, DELTA_MANIFEST_LEVEL, describeDuplicate, duplicatedKnownKey, LAYER_LEVELS, MANIFEST_LEVEL, RECORD_LEVEL, type DuplicateKey,
} from '@/lib/core/duplicate-keys';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { asMemoryRecord, RecordShapeError } from '@/lib/core/record';
import {
  isKind, isKnownRfc3339, REFERENCE_UUID, shownValue, WHAT, wrongTypedLayerField, wrongTypedManifestField, type Kind,
} from '@/lib/core/typed-fields';
import { isUuid } from '@/lib/core/uuid';
import { workspacePath } from '@/lib/history/index-rows';
import { LedgerError } from './errors';

/** Deepest JSON nesting accepted (objects and arrays; a flat object is depth 1). */
export const MAX_JSON_DEPTH = 64;
/** Longest path segment, in UTF-8 bytes (NAME_MAX of ext4, APFS, NTFS). */
export const MAX_SEGMENT_BYTES = 255;

export { isRfc3339 } from '@/lib/core/typed-fields';

const TEMPORAL_FIELDS = ['created_at', 'updated_at', 'observed_at', 'valid_from', 'valid_until', 'last_accessed_at'] as const;

function refuse(message: string): never {
  throw new LedgerError('bad_archive', `refused: ${message}`);
}

/**
 * Whether a parsed JSON value nests deeper than `max`. Recursive, but never deeper than `max + 1`
 * calls (it stops there), so a 10,000-deep value cannot overflow the stack as the indexer's
 * walk did.
 */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (const child of value) if (child !== null && typeof child === 'object' && jsonDepthExceeds(child, max, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object' && jsonDepthExceeds(child, max, depth + 1)) return true;
  }
  return false;
}

function checkDepth(value: unknown, where: string): void {
  if (jsonDepthExceeds(value)) refuse(`${where} is JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
}

const NUL = '\u0000';
const shown = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * Where in `value` a string or an object key holds U+0000 (a JSON-ish path), or null. Recursive:
 * called only after the depth check (`checkDepth`, `checkRecord`), so never deeper than MAX_JSON_DEPTH.
 */
export function nulAt(value: unknown, at: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? at : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulAt(value[i], `${at}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  for (const key in value) {
    const path = at === '' ? shown(key) : `${at}.${shown(key)}`;
    if (key.includes(NUL)) return path;
    const found = nulAt((value as Record<string, unknown>)[key], path);
    if (found) return found;
  }
  return null;
}

/**
 * Whether any string or object key in `value` holds U+0000: the walk of `nulAt` without building a
 * path for every value it passes (most records hold none, and the paths cost more than the walk).
 */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNul(item)) return true;
    return false;
  }
  for (const key in value) if (key.includes(NUL) || holdsNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * Where a refused record came from, as far as it says (its id, the file and lines, the store key or
 * the session it was made from), so that whoever synced it can find what to change: a record index
 * alone names nothing in a workspace. Shallow: read only of the top-level fields named here.
 */
function placeOf(record: { [key: string]: JsonValue | undefined }): string {
  const field = (value: JsonValue | undefined, name: string): JsonValue | undefined =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? value[name] : undefined;
  const text = (value: JsonValue | undefined): string | null =>
    typeof value === 'string' && value !== '' ? `"${shown(value.length > 200 ? `${value.slice(0, 200)}…` : value)}"` : null;
  const raw = record.raw_source_format;
  const parts: string[] = [];
  if (isUuid(record.id)) parts.push(`id ${record.id as string}`);
  const file = text(field(record.source, 'origin_file'));
  const [start, end] = [field(raw, 'line_start'), field(raw, 'line_end')];
  if (file !== null) parts.push(`file ${file}${typeof start === 'number' && typeof end === 'number' ? ` lines ${start}-${end}` : ''}`);
  const key = text(field(raw, 'key'));
  if (key !== null) parts.push(`key ${key}`);
  const session = text(field(field(raw, 'session'), 'id'));
  if (session !== null) parts.push(`session ${session}`);
  return parts.length === 0 ? '' : ` (the record's ${parts.join(', ')})`;
}

/**
 * `line`, when given, is the JSON text `record` was parsed from. JSON can put U+0000 in a string
 * or a key only as the escape `\u0000` (`JSON.parse` refuses the raw character), so a line without
 * that text holds none, and the walk of its values is skipped. `duplicate`: a known key its line
 * holds twice (`ArchiveKeys`), found as it was read.
 */
function checkRecord(record: { [key: string]: JsonValue | undefined }, where: string, line?: string, duplicate?: DuplicateKey): void {
  if (jsonDepthExceeds(record)) refuse(`${where} is JSON nested deeper than ${MAX_JSON_DEPTH} levels${placeOf(record)}`);
  const refuseRecord = (problem: string): never => refuse(`${where}: ${problem}${placeOf(record)}`);
  if (duplicate !== undefined) refuseRecord(duplicateProblem(duplicate));
  const nul = (line === undefined || line.includes('\\u0000')) && holdsNul(record) ? nulAt(record, '') : null;
  if (nul !== null) refuseRecord(`${nul} holds a NUL character (U+0000), which a memory may not contain`);
  if (!isUuid(record.id)) refuseRecord(`record id ${JSON.stringify(record.id ?? null)} is not a UUID`);
  const temporal = record.temporal;
  if (temporal === null || typeof temporal !== 'object' || Array.isArray(temporal)) return;
  for (const field of TEMPORAL_FIELDS) {
    const value = temporal[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !isKnownRfc3339(value)) {
      refuseRecord(`temporal.${field} ${shownValue(value)} is not an RFC 3339 time with a year 0000-9999`);
    }
  }
  const wrong = wrongTypedField(record);
  if (wrong !== null) refuseRecord(wrong);
}

const duplicateProblem = (duplicate: DuplicateKey): string =>
  `${describeDuplicate(duplicate)}; the reference reader refuses a field given twice (JSON readers disagree on which one counts)`;

/**
 * What a read of an archive found that `JSON.parse`'s value no longer shows, or that the reader
 * skips: the duplicated known keys of its manifest, record lines and layer documents
 * (`lib/core/duplicate-keys.ts`), and the first `memory/delta.jsonl` line the reader skips (its
 * `operation` unknown) that the reference reader still refuses (`skippedLineProblem`). `hooks` go to
 * `readSnapshot`/`scanSnapshot`/`readDelta`, and the checks below ask what was found (a record by
 * its index among those read). Only what was found is kept. An archive written in this process (a
 * local sync's) is not re-read and needs none.
 */
export class ArchiveKeys {
  private readonly lines = new Map<number, DuplicateKey>();
  private manifestDuplicate: DuplicateKey | null = null;
  private readonly layers = new Map<LayerName, DuplicateKey>();
  private skipped: string | null = null;
  readonly hooks: Required<ReadHooks>;

  constructor(readonly kind: 'snapshot' | 'delta') {
    const [manifestLevel, lineLevel] = kind === 'snapshot' ? [MANIFEST_LEVEL, RECORD_LEVEL] : [DELTA_MANIFEST_LEVEL, DELTA_LINE_LEVEL];
    this.hooks = {
      manifest: (text, value) => {
        this.manifestDuplicate = duplicatedKnownKey(text, value, manifestLevel);
      },
      line: (text, value, index) => {
        const found = duplicatedKnownKey(text, value, lineLevel);
        if (found !== null) this.lines.set(index, found);
      },
      layer: (layer, text, value) => {
        const found = duplicatedKnownKey(text, value, LAYER_LEVELS[layer]);
        if (found !== null) this.layers.set(layer, found);
      },
      skipped: (file, text, value, line) => {
        if (this.skipped !== null) return;
        const problem = skippedLineProblem(text, value);
        if (problem !== null) this.skipped = `${file} line ${line}: ${problem}`;
      },
    };
  }

  /** The duplicated key of the record read at `index`, if any. */
  line(index: number): DuplicateKey | undefined {
    return this.lines.get(index);
  }

  /** Refuses a manifest that held a known key twice. */
  checkManifest(file: string): void {
    if (this.manifestDuplicate !== null) refuse(`${file}: ${duplicateProblem(this.manifestDuplicate)}`);
  }

  /** Refuses a layer document that held a known key twice. */
  checkLayer(layer: LayerName): void {
    const found = this.layers.get(layer);
    if (found !== undefined) refuse(`${LAYER_FILES[layer]}: ${duplicateProblem(found)}`);
  }

  /** Refuses a delta whose skipped line the reference reader refuses. */
  checkSkipped(): void {
    if (this.skipped !== null) refuse(this.skipped);
  }
}

/**
 * Why the reference reader refuses a `memory/delta.jsonl` line ours skips, or null. Its
 * `DeltaMemoryEntry` reads every line whole — `operation` (a forward-compatible enum: any string,
 * required) and the record flattened into it — before an unknown operation is ignored (CONTRACT
 * §3.2, §5 apply_delta), so such a line must still be a record it reads: the readers' required
 * fields, no known key twice, the reference's UUID and times, `wrongTypedField`. Not our own rules
 * (NUL, depth, our UUID form): the line is never indexed. Never throws.
 */
export function skippedLineProblem(text: string, value: JsonObject): string | null {
  const { operation, ...record } = value;
  if (operation === undefined) return 'operation is missing (the reference reader refuses a line without one)';
  if (typeof operation !== 'string') return `operation ${shownValue(operation)} is not a string`;
  const skipped = (problem: string) => `${problem} (operation ${shownValue(operation)} is unknown and the line skipped, but the reference reader reads it whole)`;
  try {
    asMemoryRecord(record, 'record');
  } catch (err) {
    if (err instanceof RecordShapeError) return skipped(err.message);
    throw err;
  }
  const duplicate = duplicatedKnownKey(text, value, DELTA_LINE_LEVEL);
  if (duplicate !== null) return skipped(duplicateProblem(duplicate));
  if (!REFERENCE_UUID.test(record.id as string)) return skipped(`record id ${shownValue(record.id!)} is not a UUID`);
  const temporal = record.temporal as JsonObject;
  for (const field of TEMPORAL_FIELDS) {
    const time = temporal[field];
    if (time !== undefined && time !== null && !isKind(time, 'time')) return skipped(`temporal.${field} ${shownValue(time)} is not ${WHAT.time}`);
  }
  const wrong = wrongTypedField(record);
  return wrong === null ? null : skipped(wrong);
}

/** The duplicated known key of a record line read as a snapshot's, if any (for a check made where the line is at hand). */
export function duplicatedRecordKey(line: string, record: AlfSnapshot['records'][number]): DuplicateKey | undefined {
  return duplicatedKnownKey(line, record, RECORD_LEVEL) ?? undefined;
}


/** The last `agent_id` found a UUID: an archive's records all hold one, and the pattern cost most of the walk. */
let lastAgentId = '';


/** The known fields of an array's items (CONTRACT §4.1): each required, or optional (absent or null). */
const ITEM_FIELDS: Record<'entities' | 'embeddings' | 'related_records', [string, Kind, 'required' | 'optional'][]> = {
  entities: [['name', 'string', 'required'], ['type', 'string', 'required'], ['role', 'string', 'optional']],
  embeddings: [['model', 'string', 'required'], ['dimensions', 'u32', 'required'], ['computed_at', 'time', 'required'], ['source', 'string', 'required']],
  related_records: [['id', 'uuid', 'required'], ['relation', 'string', 'required']],
};
/** The optional scalar fields a reader types (absent or null, else of their kind). */
const OPTIONAL_TOP: [string, Kind][] = [['category', 'string'], ['supersedes', 'uuid'], ['confidence', 'number']];
const OPTIONAL_SOURCE: [string, Kind][] = [
  ['runtime_version', 'string'], ['origin', 'string'], ['origin_file', 'string'], ['extraction_method', 'string'],
  ['session_id', 'string'], ['interaction_id', 'string'], ['identity_version', 'u32'],
];

/**
 * The first known field of `record` holding a JSON type the reference reader refuses (its typed
 * record, CONTRACT §4.1, memory-record.schema.json): `agent_id` a UUID; `category`,
 * `source.runtime_version` … `source.interaction_id` strings, `supersedes` a UUID, `confidence` a
 * number, `source.identity_version` and `temporal.access_count` whole numbers, each also absent or
 * null; `tags` an array of strings; `entities`, `embeddings` and `related_records` arrays of objects
 * with their own typed fields (`embeddings[].vector` numbers). An array field may be absent, not
 * null. `raw_source_format` and unknown keys at every level hold anything; enum values (`memory_type`,
 * `status`, `extraction_method`, an entity's `type`, an embedding's `source`) any string. Such a
 * record no reader of the format reads (`alf` refuses the archive), and ingest refuses it rather
 * than keep what no client could restore. Null when every one is of its type.
 */
export function wrongTypedField(record: { [key: string]: JsonValue | undefined }): string | null {
  const wrong = (path: string, value: JsonValue, what: string) => `${path} ${shownValue(value)} is not ${what}`;
  if (typeof record.agent_id === 'string' && record.agent_id !== lastAgentId) {
    if (!REFERENCE_UUID.test(record.agent_id)) return wrong('agent_id', record.agent_id, 'a UUID');
    lastAgentId = record.agent_id;
  }
  const optional = (holder: JsonObject, fields: [string, Kind][], at: string): string | null => {
    for (const [name, kind] of fields) {
      const value = holder[name];
      if (value === undefined || value === null || isKind(value, kind)) continue;
      return wrong(`${at}${name}`, value, WHAT[kind]);
    }
    return null;
  };
  const top = optional(record as JsonObject, OPTIONAL_TOP, '');
  if (top !== null) return top;
  if (isJsonObject(record.source)) {
    const source = optional(record.source, OPTIONAL_SOURCE, 'source.');
    if (source !== null) return source;
  }
  if (isJsonObject(record.temporal)) {
    const count = optional(record.temporal, [['access_count', 'u64']], 'temporal.');
    if (count !== null) return count;
  }
  const tags = record.tags;
  if (tags !== undefined) {
    if (!Array.isArray(tags)) return wrong('tags', tags, 'an array of strings');
    const at = tags.findIndex((tag) => typeof tag !== 'string');
    if (at >= 0) return wrong(`tags[${at}]`, tags[at]!, 'a string');
  }
  for (const field of ['entities', 'embeddings', 'related_records'] as const) {
    const items = record[field];
    if (items === undefined) continue;
    if (!Array.isArray(items)) return wrong(field, items, 'an array of objects');
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (!isJsonObject(item)) return wrong(`${field}[${i}]`, item, 'an object');
      for (const [name, kind, need] of ITEM_FIELDS[field]) {
        const value = item[name];
        if ((value === undefined || value === null) && need === 'optional') continue;
        if (value === undefined) return `${field}[${i}].${name} is missing`;
        if (!isKind(value, kind)) return wrong(`${field}[${i}].${name}`, value, WHAT[kind]);
      }
      if (field === 'embeddings') {
        const vector = item.vector;
        if (vector === undefined) return `${field}[${i}].vector is missing`;
        if (!Array.isArray(vector)) return wrong(`${field}[${i}].vector`, vector, 'an array of numbers');
        const at = vector.findIndex((v) => typeof v !== 'number');
        if (at >= 0) return wrong(`${field}[${i}].vector[${at}]`, vector[at]!, 'a number');
      }
    }
  }
  return null;
}

/** The segments of an archive path that no file system would hold. */
function checkSegments(archivePath: string): void {
  if (archivePath.includes(NUL)) refuse(`path "${shown(archivePath.slice(0, 300))}" holds a NUL character (U+0000)`);
  for (const segment of archivePath.split('/')) {
    const bytes = Buffer.byteLength(segment, 'utf8');
    if (bytes > MAX_SEGMENT_BYTES) refuse(`path "${archivePath.slice(0, 300)}" has a segment of ${bytes} bytes (at most ${MAX_SEGMENT_BYTES})`);
  }
}

/**
 * The file tree an entry leaves: no path may be a file and a directory at once, and no two paths
 * may be equal under Unicode NFC (a normalizing file system would write them to one file).
 */
export function checkTree(paths: Iterable<string>): void {
  const nodes = new Map<string, { name: string; file: boolean }>();
  const add = (name: string, file: boolean) => {
    const key = name.normalize('NFC');
    const seen = nodes.get(key);
    if (!seen) {
      nodes.set(key, { name, file });
      return;
    }
    if (seen.name !== name) refuse(`paths "${seen.name}" and "${name}" are the same name under Unicode NFC`);
    if (seen.file || file) refuse(`"${name}" is both a file and a directory`);
  };
  for (const p of new Set(paths)) {
    add(p, true);
    for (let cut = p.indexOf('/'); cut > 0; cut = p.indexOf('/', cut + 1)) add(p.slice(0, cut), false);
  }
}

/**
 * The manifest's layer file references: a listed layer names its fixed path and the archive holds
 * it (lib/core/archive/layer-refs.ts), else the reference reader could not read what was stored;
 * then its known fields' JSON types (`wrongTypedManifestField`: a typed struct there).
 * `layers`: the documents read from the fixed paths (present exactly when the archive holds them).
 */
function checkLayerFiles(manifest: JsonObject, kind: 'snapshot' | 'delta', layers: Partial<Record<LayerName, JsonObject>>): void {
  const problem = layerFileProblem(manifest, kind, (file) =>
    (Object.keys(LAYER_FILES) as LayerName[]).some((layer) => LAYER_FILES[layer] === file && layers[layer] !== undefined));
  if (problem !== null) refuse(problem);
  const file = kind === 'snapshot' ? 'manifest.json' : 'delta-manifest.json';
  const wrong = wrongTypedManifestField(kind, manifest);
  if (wrong !== null) refuse(`${file}: ${wrong}`);
}

/**
 * The layer documents' checks: depth, a known key twice (`keys`, when read from bytes), and a
 * known field the reference reader refuses (`wrongTypedLayerField`: they are typed structs there).
 * Small documents: no cost worth naming beside the records'.
 */
function checkLayers(layers: Partial<Record<LayerName, JsonObject>>, keys?: ArchiveKeys): void {
  for (const [name, doc] of Object.entries(layers) as [LayerName, JsonObject][]) {
    checkDepth(doc, LAYER_FILES[name]);
    keys?.checkLayer(name);
    const wrong = wrongTypedLayerField(name, doc);
    if (wrong !== null) refuse(`${LAYER_FILES[name]}: ${wrong}`);
  }
}

/**
 * Every check of a snapshot: its JSON documents, records, paths and the tree of its raw files;
 * `keys`: what its read found of duplicated keys (a snapshot read from bytes has them).
 */
export function checkSnapshotServable(snapshot: AlfSnapshot, keys?: ArchiveKeys): void {
  checkSnapshotParts(snapshot, () => snapshot.records.forEach((record, index) => checkSnapshotRecord(record, index, undefined, keys?.line(index))), keys);
}

/**
 * The checks of a snapshot's record (the `index`th, from 0); `line`: the JSON text it was parsed
 * from, when at hand (its duplicated keys are looked for in it); `duplicate`: else, what its read found.
 */
export function checkSnapshotRecord(record: AlfSnapshot['records'][number], index: number, line?: string, duplicate?: DuplicateKey): void {
  checkRecord(record, `record ${index + 1}`, line, line === undefined ? duplicate : duplicatedRecordKey(line, record));
}

/**
 * {@link checkSnapshotRecord} of a record this process built (lib/ledger/record-checks.ts): it was
 * never JSON text, so no key of it can be duplicated; `nulDecided`: its U+0000 walk is left out,
 * decided on its line's bytes instead (record-checks.ts `done`).
 */
export function checkBuiltRecord(record: AlfSnapshot['records'][number], index: number, nulDecided: boolean): void {
  checkRecord(record, `record ${index + 1}`, nulDecided ? '' : undefined);
}

/**
 * Every check of {@link checkSnapshotServable} but the records', which `records` makes (or says
 * the verdict of, when they were checked as they were read), in their place: after the manifest's
 * and the layers', before the paths'.
 */
export function checkSnapshotParts(snapshot: Omit<AlfSnapshot, 'records'>, records: () => void, keys?: ArchiveKeys): void {
  checkDepth(snapshot.manifest, 'manifest.json');
  keys?.checkManifest('manifest.json');
  checkLayerFiles(snapshot.manifest, 'snapshot', snapshot.layers);
  checkLayers(snapshot.layers, keys);
  records();
  const paths = [...snapshot.raw.keys(), ...snapshot.extra.keys()];
  paths.forEach(checkSegments);
  checkTree(paths);
}

/**
 * Every check of a delta; `livePaths` are the archive paths of the raw files live at its base,
 * workspace-relative (the index's `raw_file_versions.path`), so the tree checked is the one the delta leaves.
 * `checkedTreeHolds(paths)`: whether the base's tree is one these checks saw whole and holds all
 * `paths` (lib/history/checked-tree.ts) — then the tree is not read (same verdict: see there).
 * `keys`: what its read found of duplicated keys (a delta read from bytes has them).
 */
export function checkDeltaServable(
  delta: AlfDelta, livePaths: () => Iterable<string>, checkedTreeHolds?: (paths: string[]) => boolean, keys?: ArchiveKeys,
): void {
  checkDepth(delta.manifest, 'delta-manifest.json');
  keys?.checkManifest('delta-manifest.json');
  checkLayerFiles(delta.manifest, 'delta', delta.layers);
  checkLayers(delta.layers, keys);
  delta.entries.forEach((entry, i) => checkRecord(entry.record, `memory/delta.jsonl entry ${i + 1}`, undefined, keys?.line(i)));
  keys?.checkSkipped();
  for (const p of [...delta.rawChanged.keys(), ...delta.rawDeleted]) checkSegments(p);
  // Only an added path can make a conflict: a delta that adds none needs no look at the tree.
  if (delta.rawChanged.size === 0) return;
  // Nor does one that changes only files the base holds: it leaves a subset of a tree without conflicts.
  if (checkedTreeHolds?.([...delta.rawChanged.keys()].map(workspacePath))) return;
  const tree = new Set(livePaths());
  for (const p of delta.rawDeleted) tree.delete(workspacePath(p));
  for (const p of delta.rawChanged.keys()) tree.add(workspacePath(p));
  checkTree(tree);
}
