import { isJsonObject, type JsonObject } from '../json';
import { splitJsonLines, tryParseJson } from '../archive/json-text';
import { LAYER_FILES, type LayerName } from '../archive/types';
import { DELTA_LINE_LEVEL, describeDuplicate, duplicatedKnownKey, LAYER_LEVELS, RECORD_LEVEL, type KeyLevel } from '../duplicate-keys';
import { isRecordIdForm, REFERENCE_UUID, wrongTypedLayerField, wrongTypedManifestField, wrongTypedRecordField } from '../typed-fields';
import { LAYER_DOCS } from './manifest-rules';
import { uuidValue } from './reference-rules';
import { MEMORY_RECORD } from './record-rules';
import { checkValue, child, type Issues, type Rule } from './rules';

const OPERATIONS: readonly unknown[] = ['create', 'update', 'delete'];
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON object document, reporting (not throwing) when it is missing or malformed;
 * `keys`: the fields its reader's structs know, each an error when it comes twice in one object.
 */
export function parseDocument(files: ReadonlyMap<string, Uint8Array>, name: string, issues: Issues, keys?: KeyLevel): JsonObject | null {
  const bytes = files.get(name);
  if (!bytes) return null;
  let value: unknown;
  let text: string;
  try {
    text = utf8.decode(bytes);
    value = tryParseJson(text);
  } catch {
    issues.error(name, 'not valid UTF-8');
    return null;
  }
  if (value === undefined) issues.error(name, 'not valid JSON');
  else if (!isJsonObject(value)) issues.error(name, 'expected a JSON object');
  else {
    if (keys !== undefined) duplicateError(text, value, keys, name, issues);
    return value;
  }
  return null;
}

/** An error when `text` (parsed as `value`) holds a known key of `keys` twice in one object: the reference reader refuses it. */
function duplicateError(text: string, value: JsonObject, keys: KeyLevel, where: string, issues: Issues): void {
  const duplicate = duplicatedKnownKey(text, value, keys);
  if (duplicate !== null) {
    issues.error(where, `${describeDuplicate(duplicate)}: the reference reader refuses a field given twice, and JSON readers disagree on which one counts`);
  }
}

/**
 * Checks a layer document (`identity.json` …) against its rule (derived from the reader's struct,
 * manifest-rules.ts `LAYER_DOCS`) and a known key twice; when the rule found nothing, against that
 * struct by ingest's own reading (`wrongTypedLayerField`), as a manifest is: each problem said once.
 */
export function checkLayerDocument(files: ReadonlyMap<string, Uint8Array>, layer: LayerName, issues: Issues): JsonObject | null {
  return checkTypedDocument(files, LAYER_FILES[layer], LAYER_DOCS[layer], issues, LAYER_LEVELS[layer], (doc) => wrongTypedLayerField(layer, doc));
}

/**
 * Checks a manifest (`manifest.json`, or a delta's at `name`) against its rule and, when the rule
 * found nothing, against the reference reader's structs (`wrongTypedManifestField`, the rule ingest
 * refuses by): what the reference reader refuses, `alf validate` cannot read, so it is an error here.
 */
export function checkManifestDocument(
  files: ReadonlyMap<string, Uint8Array>, name: string, kind: 'snapshot' | 'delta', rule: Rule, issues: Issues, keys: KeyLevel,
): JsonObject | null {
  return checkTypedDocument(files, name, rule, issues, keys, (doc) => wrongTypedManifestField(kind, doc));
}

/** A document checked against its rule, then, if that found nothing, by `wrongTyped` (a typed check's first refusal, or null). */
function checkTypedDocument(
  files: ReadonlyMap<string, Uint8Array>, name: string, rule: Rule, issues: Issues, keys: KeyLevel, wrongTyped: (doc: JsonObject) => string | null,
): JsonObject | null {
  const before = issues.errors.length;
  const doc = checkDocument(files, name, rule, issues, keys);
  const wrong = doc === null || issues.errors.length > before ? null : wrongTyped(doc);
  if (wrong !== null) issues.error(name, `${wrong}: the reference reader refuses it`);
  return doc;
}

/** Parses and checks a document against a rule (see {@link parseDocument} for `keys`); null when absent or unusable. */
export function checkDocument(files: ReadonlyMap<string, Uint8Array>, name: string, rule: Rule, issues: Issues, keys?: KeyLevel): JsonObject | null {
  const doc = parseDocument(files, name, issues, keys);
  if (doc) checkValue(doc, rule, name, issues);
  return doc;
}

/**
 * Where each record id was first seen (and as what text), across all files of one archive, keyed by
 * the UUID it writes (`uuidValue`), or by its text when it writes none.
 */
export type IdSightings = Map<string, { where: string; id: string }>;

/**
 * Checks every line of a JSONL record file (partition or `delta.jsonl`) and returns
 * how many non-blank lines it holds. In a delta, the `operation` key is checked and
 * stripped before the record is checked.
 */
export function checkRecordFile(
  bytes: Uint8Array,
  file: string,
  issues: Issues,
  ids: IdSightings,
  opts: { delta: boolean; maxLineBytes: number },
): number {
  let lines;
  try {
    lines = splitJsonLines(bytes, file, opts.maxLineBytes);
  } catch (err) {
    issues.error(file, (err as Error).message);
    return 0;
  }
  for (const line of lines) {
    const where = `${file}:${line.line}`;
    const value = tryParseJson(line.text);
    if (!isJsonObject(value)) {
      issues.error(where, value === undefined ? 'not valid JSON' : 'expected a JSON object');
      continue;
    }
    duplicateError(line.text, value, opts.delta ? DELTA_LINE_LEVEL : RECORD_LEVEL, where, issues);
    const { record, skipped } = opts.delta ? withoutOperation(value, where, issues) : { record: value, skipped: false };
    if (!record) continue;
    checkRecord(record, where, issues);
    if (!skipped) noteId(record.id, where, issues, ids);
  }
  return lines.length;
}

/**
 * Checks a record against its rule and, when the rule found nothing, against the reference reader's
 * struct (`wrongTypedRecordField`, as for a manifest): the rule is derived from that struct, so this
 * is ingest's own reading of it, said in ingest's words should the two ever part.
 */
function checkRecord(record: JsonObject, where: string, issues: Issues): void {
  const before = issues.errors.length;
  checkValue(record, MEMORY_RECORD, where, issues);
  const wrong = issues.errors.length > before ? null : wrongTypedRecordField(record);
  if (wrong !== null) issues.error(where, `${wrong}: the reference reader refuses it`);
}

/**
 * A delta line's record, and whether readers skip it (an unknown operation). The reference reader
 * reads a skipped line whole all the same (`DeltaMemoryEntry`: `operation` any string, the record
 * flattened in), so its record is checked as any other; only its id is not noted.
 */
function withoutOperation(value: JsonObject, where: string, issues: Issues): { record: JsonObject | null; skipped: boolean } {
  const { operation, ...record } = value;
  if (operation === undefined) {
    issues.error(child(where, 'operation'), 'is required');
    return { record: null, skipped: true };
  }
  if (typeof operation !== 'string') {
    issues.error(child(where, 'operation'), `${JSON.stringify(operation)} is not a string`);
    return { record: null, skipped: true };
  }
  if (!OPERATIONS.includes(operation)) {
    issues.warn(child(where, 'operation'), `unknown operation ${JSON.stringify(operation)}; readers skip this line (the reference reader still reads it whole)`);
    return { record, skipped: true };
  }
  return { record, skipped: false };
}

function noteId(id: unknown, where: string, issues: Issues, ids: IdSightings): void {
  if (typeof id !== 'string') return;
  // The reference reader takes any form the uuid crate parses (upper case, braced, `urn:uuid:`, 32 hex
  // digits): valid, as `alf validate` says; a ledger keys records by their id's text and refuses any but
  // the lowercase hyphenated form (typed-fields.ts `isRecordIdForm`, as ingest).
  if (REFERENCE_UUID.test(id) && !isRecordIdForm(id)) {
    issues.warn(child(where, 'id'), `record id ${JSON.stringify(id)} is not in the lowercase hyphenated form 8-4-4-4-12; the reference reader takes it, a ledger refuses it`);
  }
  // One UUID written in two forms (case, `urn:uuid:`, braces, no hyphens) is one id, as the reference
  // reader's `Uuid`s compare and as the other id checks here compare (reference-rules.ts `uuidValue`).
  const key = uuidValue(id) ?? id;
  const first = ids.get(key);
  // The reference validator has no such rule: a warning here, while ingest keeps refusing them.
  if (first === undefined) ids.set(key, { where, id });
  else {
    const as = first.id === id ? '' : `, as ${first.id}`;
    issues.warn(child(where, 'id'), `duplicate record id ${id} (first at ${first.where}${as}); a ledger refuses it`);
  }
}
