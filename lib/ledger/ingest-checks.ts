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
import { deltaManifestName } from '@/lib/core/archive/read-delta';
import { LAYER_FILES, type AlfDelta, type AlfSnapshot, type LayerName, type ReadHooks } from '@/lib/core/archive/types';
import {
  DELTA_LINE_LEVEL, DELTA_MANIFEST_LEVEL, describeDuplicate, duplicatedKnownKey, LAYER_LEVELS, MANIFEST_LEVEL, RECORD_LEVEL, type DuplicateKey,
} from '@/lib/core/duplicate-keys';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { isStruct, RECORD, RECORD_TEMPORAL, type Kind, type Need, type Struct } from '@/lib/core/reader-structs';
import { asMemoryRecord, RecordShapeError } from '@/lib/core/record';
import { isKind, isKnownRfc3339, recordIdProblem, REFERENCE_UUID, shownValue, WHAT, wrongTypedLayerField, wrongTypedManifestField, wrongValue } from '@/lib/core/typed-fields';
import { isUuid } from '@/lib/core/uuid';
import { workspacePath } from '@/lib/history/index-rows';
import { LedgerError } from './errors';

/** Deepest JSON nesting accepted (objects and arrays; a flat object is depth 1). */
export const MAX_JSON_DEPTH = 64;
/** Longest path segment, in UTF-8 bytes (NAME_MAX of ext4, APFS, NTFS). */
export const MAX_SEGMENT_BYTES = 255;

export { isRfc3339 } from '@/lib/core/typed-fields';

/** The record's times (`temporal`'s fields of kind `time`, lib/core/reader-structs.ts), checked first (`checkRecord`, `skippedLineProblem`). */
const TEMPORAL_FIELDS: readonly string[] = RECORD_TEMPORAL.fields.filter(([, shape]) => shape === 'time').map(([name]) => name);

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
export function placeOf(record: { [key: string]: JsonValue | undefined }): string {
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
  // Stricter than the reference reader, on purpose (`lineage validate` says so, as a warning and an
  // error: lib/ledger/validate-ingest-parity.test.ts): its `Uuid` also takes an upper-case, braced,
  // `urn:uuid:` or unhyphenated id and compares values, but a ledger keys records by the id's text, so
  // only the lowercase hyphenated form (CONTRACT §4.2) is kept (typed-fields.ts `recordIdProblem`);
  // its chrono also reads a relaxed RFC 3339 (`2026-1-5 1:2:3 UTC`, `+0100`), which no reader of ours does.
  const idProblem = recordIdProblem(record.id);
  if (idProblem !== null) refuseRecord(idProblem);
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


/**
 * The record's fields checked before {@link wrongTypedField}, by what reads a record first, and so
 * left out of its walk: `asMemoryRecord` (lib/core/record.ts; every reader calls it: `content`,
 * `memory_type`, `status`, `namespace`, `source.runtime` strings, `source` and `temporal` objects)
 * and `checkRecord` / `skippedLineProblem` (`id` a UUID, in our form or the reference's; `temporal`'s
 * times, `TEMPORAL_FIELDS`, with the words the walk would say).
 */
const CHECKED_BEFORE: ReadonlySet<string> = new Set([
  'id', 'content', 'memory_type', 'status', 'namespace', 'source.runtime', ...TEMPORAL_FIELDS.map((name) => `temporal.${name}`),
]);

/**
 * One known field of the record as {@link wrongTypedField} checks it: compiled once from the
 * record's struct (lib/core/reader-structs.ts `RECORD`). `what`: what a value of another type is
 * said not to be (an array field: of what, `an array of strings`).
 */
interface FieldCheck {
  readonly name: string;
  readonly need: Need;
  readonly what: string;
  /** A scalar: its kind. */
  readonly kind?: Kind;
  /** A struct: its fields' checks. */
  readonly fields?: readonly FieldCheck[];
  /** A list: its items' kind, or their struct's fields' checks. */
  readonly items?: Kind | readonly FieldCheck[];
  /**
   * A UUID field: the last value found one. An archive's records all hold one `agent_id`, and the
   * pattern cost most of the walk; a value equal to it is not tested again.
   */
  lastUuid?: string;
}

const ARRAY_OF: Record<Kind, string> = {
  string: 'strings', uuid: 'UUIDs', number: 'numbers', u32: 'whole numbers 0 to 4294967295', u64: 'whole numbers 0 or more',
  time: 'RFC 3339 times with a year 0000-9999', date: 'dates YYYY-MM-DD', boolean: 'true or false values',
};

/** The checks of `struct`'s fields at `at` (`source.`; '' at the top); a `serde_json::Value` field (anything) and the fields {@link CHECKED_BEFORE} have none. */
function fieldChecks(struct: Struct, at: string): FieldCheck[] {
  const checks: FieldCheck[] = [];
  for (const [name, shape, need] of struct.fields) {
    if (shape === 'value' || CHECKED_BEFORE.has(`${at}${name}`)) continue;
    if (typeof shape === 'string') checks.push({ name, need, what: WHAT[shape], kind: shape });
    else if (isStruct(shape)) checks.push({ name, need, what: 'an object', fields: fieldChecks(shape, `${at}${name}.`) });
    else if ('map' in shape) throw new Error(`record field ${at}${name}: a map, which wrongTypedField does not check`);
    else if (shape.list === 'value') checks.push({ name, need, what: 'an array' });
    else if (typeof shape.list === 'string') checks.push({ name, need, what: `an array of ${ARRAY_OF[shape.list]}`, items: shape.list });
    else checks.push({ name, need, what: 'an array of objects', items: fieldChecks(shape.list, `${at}${name}[].`) });
  }
  return checks;
}

/** The record's checks, in the struct's order (the first field refused is the one named). */
const RECORD_CHECKS: readonly FieldCheck[] = fieldChecks(RECORD, '');

/**
 * The first of `checks` that `holder` fails, said from `holder` (`name is missing`,
 * `vector[0] null is not a number`); the caller puts its own path before it. No string is built
 * unless a field is refused.
 */
function wrongIn(holder: JsonObject, checks: readonly FieldCheck[]): string | null {
  for (const check of checks) {
    const value = holder[check.name];
    if (value === undefined) {
      if (check.need === 'required') return `${check.name} is missing`;
      continue;
    }
    if (value === null) {
      if (check.need === 'optional') continue;
      return wrongValue(check.name, value, check.what);
    }
    const kind = check.kind;
    if (kind !== undefined) {
      if (value === check.lastUuid) continue;
      if (!isKind(value, kind)) return wrongValue(check.name, value, check.what);
      if (kind === 'uuid') check.lastUuid = value as string;
      continue;
    }
    if (check.fields !== undefined) {
      if (!isJsonObject(value)) return wrongValue(check.name, value, check.what);
      const found = wrongIn(value, check.fields);
      if (found !== null) return `${check.name}.${found}`;
      continue;
    }
    if (!Array.isArray(value)) return wrongValue(check.name, value, check.what);
    const items = check.items;
    if (items === undefined) continue;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      if (typeof items === 'string') {
        if (!isKind(item, items)) return wrongValue(`${check.name}[${i}]`, item, WHAT[items]);
        continue;
      }
      if (!isJsonObject(item)) return wrongValue(`${check.name}[${i}]`, item, 'an object');
      const found = wrongIn(item, items);
      if (found !== null) return `${check.name}[${i}].${found}`;
    }
  }
  return null;
}

/**
 * The first known field of `record` holding a JSON type the reference reader refuses (its typed
 * record, CONTRACT §4.1, memory-record.schema.json; the table: lib/core/reader-structs.ts `RECORD`,
 * less the fields {@link CHECKED_BEFORE}): `agent_id` a UUID; `category`,
 * `source.runtime_version` … `source.interaction_id` strings, `supersedes` a UUID, `confidence` a
 * number, `source.identity_version` and `temporal.access_count` whole numbers, each also absent or
 * null; `tags` an array of strings; `entities`, `embeddings` and `related_records` arrays of objects
 * with their own typed fields (`embeddings[].vector` numbers). An array field may be absent, not
 * null. `raw_source_format` and unknown keys at every level hold anything; enum values (`memory_type`,
 * `status`, `extraction_method`, an entity's `type`, an embedding's `source`) any string. Such a
 * record no reader of the format reads (`alf` refuses the archive), and ingest refuses it rather
 * than keep what no client could restore. Null when every one is of its type. Runs per record of
 * every ingest: the walk builds no string unless it refuses.
 */
export function wrongTypedField(record: { [key: string]: JsonValue | undefined }): string | null {
  return wrongIn(record as JsonObject, RECORD_CHECKS);
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
function checkLayerFiles(manifest: JsonObject, kind: 'snapshot' | 'delta', layers: Partial<Record<LayerName, JsonObject>>, file: string): void {
  const problem = layerFileProblem(manifest, kind, (name) =>
    (Object.keys(LAYER_FILES) as LayerName[]).some((layer) => LAYER_FILES[layer] === name && layers[layer] !== undefined), file);
  if (problem !== null) refuse(problem);
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
  checkLayerFiles(snapshot.manifest, 'snapshot', snapshot.layers, 'manifest.json');
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
  const manifestFile = deltaManifestName(delta);
  checkDepth(delta.manifest, manifestFile);
  keys?.checkManifest(manifestFile);
  checkLayerFiles(delta.manifest, 'delta', delta.layers, manifestFile);
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
