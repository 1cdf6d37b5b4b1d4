/**
 * The JSON types the reference `alf` reader's structs give known fields (serde derive; CONTRACT
 * §3/§4.1, the schemas in ../shared/alf/schemas): what a field of each kind must hold for that
 * reader to read it (`isKind`), and the layer documents' structs (`identity.json`, `principals.json`,
 * `credentials.json`, `attachments.json`: alf-core identity.rs, principals.rs, credentials.rs and
 * manifest.rs's AttachmentsIndex) with `wrongTypedLayerField`, the first field of a layer document
 * that reader refuses. The record's own fields are checked by `wrongTypedField`
 * (lib/ledger/ingest-checks.ts) with the same kinds. Unknown keys and `serde_json::Value`s hold
 * anything; enum fields (`principal_type`, `credential_type`, a capability's `portability`, a
 * sub-agent's `status`) any string; an `Option` may be absent or null; a list with a default may be
 * absent, not null.
 */
import { echoInput } from './echo';
import type { JsonObject, JsonValue } from './json';
import type { LayerName } from './archive/types';

/** RFC 3339 date-time: a four-digit year (0000–9999), a time and a zone. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** A valid RFC 3339 time with a year 0000–9999 and real month, day and clock values. */
export function isRfc3339(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const zone = m[8]!;
  if (zone.length === 6 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) return false;
  const daysInMonth = new Date(Date.UTC(2000 + (Number(m[1]) % 400), month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 60;
}

/**
 * Times already found valid: a store's records share a handful of timestamps (a file's mtime, the
 * sync's time), and a 50,000-record snapshot checked each of its ~150,000 anew. Bounded.
 */
const validTimes = new Set<string>();
export function isKnownRfc3339(text: string): boolean {
  if (validTimes.has(text)) return true;
  if (!isRfc3339(text)) return false;
  if (validTimes.size >= 4096) validTimes.clear();
  validTimes.add(text);
  return true;
}

/**
 * UUID text as the reference reader's `Uuid` takes it (the uuid crate's `parse_str`): hyphenated,
 * 32 hex digits, braced or `urn:uuid:`, any case.
 */
export const REFERENCE_UUID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}|urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const U32_MAX = 4_294_967_295;
/** u64's largest, as a JSON number parses: 2^64 (the text of 2^64 - 1 parses to it too, and must pass). */
const U64_MAX = 2 ** 64;

export type Kind = 'string' | 'uuid' | 'number' | 'u32' | 'u64' | 'time' | 'boolean';
export const WHAT: Record<Kind, string> = {
  string: 'a string', uuid: 'a UUID', number: 'a number', u32: 'a whole number 0 to 4294967295', u64: 'a whole number 0 or more',
  time: 'an RFC 3339 time with a year 0000-9999', boolean: 'true or false',
};

export function isKind(value: JsonValue, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'uuid': return typeof value === 'string' && REFERENCE_UUID.test(value);
    case 'number': return typeof value === 'number';
    case 'u32': return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= U32_MAX;
    case 'u64': return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= U64_MAX;
    case 'time': return typeof value === 'string' && isKnownRfc3339(value);
    case 'boolean': return typeof value === 'boolean';
  }
}

/** A value as an error message repeats it: its JSON, cut as `echoInput` cuts (a 300,000-character time was repeated whole). */
export const shownValue = (value: JsonValue): string => echoInput(JSON.stringify(value));

export type JsonFields = JsonObject;
export const isObject = (value: JsonValue | undefined): value is JsonFields => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One known field of a struct: its name, what it holds, and whether it is `required` (absent:
 * "missing field"; null refused), `optional` (an `Option`: absent or null) or `listed` (a list or
 * map with `#[serde(default)]`: absent, not null).
 */
type Shape = Kind | 'value' | Struct | { list: Kind | 'value' | Struct } | { map: Kind };
type FieldRule = readonly [name: string, shape: Shape, need: 'required' | 'optional' | 'listed'];
interface Struct {
  readonly fields: readonly FieldRule[];
}
const struct = (...fields: FieldRule[]): Struct => ({ fields });
const list = (items: Kind | 'value' | Struct) => ({ list: items });

const CAPABILITY = struct(['name', 'string', 'required'], ['description', 'string', 'optional'], ['priority', 'u32', 'optional'],
  ['portability', 'string', 'optional'], ['host_requirements', 'string', 'optional'], ['credential_ids', list('uuid'), 'listed']);
const IDENTITY = struct(
  ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['version', 'u32', 'required'], ['updated_at', 'time', 'required'],
  ['structured', struct(
    ['names', struct(['primary', 'string', 'required'], ['nickname', 'string', 'optional'], ['full', 'string', 'optional']), 'optional'],
    ['role', 'string', 'optional'], ['goals', list('string'), 'listed'],
    ['psychology', struct(
      ['neural_matrix', { map: 'number' }, 'listed'],
      ['personality_traits', struct(['framework', 'string', 'required'], ['scores', { map: 'number' }, 'required']), 'optional'],
      ['moral_alignment', 'string', 'optional'], ['mbti', 'string', 'optional'],
    ), 'optional'],
    ['linguistics', struct(
      ['formality_level', 'number', 'optional'], ['verbosity', 'number', 'optional'], ['humor_level', 'number', 'optional'],
      ['slang_usage', 'boolean', 'optional'], ['preferred_language', 'string', 'optional'],
      ['idiolect', struct(['catchphrases', list('string'), 'listed'], ['verbal_tics', list('string'), 'listed'], ['avoided_words', list('string'), 'listed']), 'optional'],
    ), 'optional'],
    ['capabilities', list(CAPABILITY), 'listed'],
    ['sub_agents', list(struct(
      ['agent_id', 'uuid', 'optional'], ['name', 'string', 'required'], ['capabilities', list(CAPABILITY), 'required'], ['status', 'string', 'required'],
      ['description', 'string', 'optional'], ['model_hints', struct(['primary_model', 'string', 'optional'], ['last_model', 'string', 'optional']), 'optional'],
      ['routing_hints', 'string', 'optional'], ['last_invoked_at', 'time', 'optional'], ['performance_notes', 'string', 'optional'],
    )), 'listed'],
    ['aieos_extensions', 'value', 'optional'],
  ), 'optional'],
  ['prose', struct(['soul', 'string', 'optional'], ['operating_instructions', 'string', 'optional'], ['identity_profile', 'string', 'optional'],
    ['custom_blocks', { map: 'string' }, 'listed']), 'optional'],
  ['source_format', 'string', 'optional'], ['raw_source', 'value', 'optional'],
);
const PRINCIPALS = struct(['principals', list(struct(
  ['id', 'uuid', 'required'], ['principal_type', 'string', 'required'], ['agent_id', 'uuid', 'optional'],
  ['profile', struct(
    ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['principal_id', 'uuid', 'required'], ['version', 'u32', 'required'],
    ['updated_at', 'time', 'required'],
    ['structured', struct(
      ['name', 'string', 'optional'], ['principal_type', 'string', 'optional'], ['timezone', 'string', 'optional'], ['locale', 'string', 'optional'],
      ['communication_preferences', struct(['tone', 'string', 'optional'], ['response_length', 'string', 'optional'], ['formatting', 'string', 'optional']), 'optional'],
      ['work_context', struct(['role', 'string', 'optional'], ['company', 'string', 'optional'], ['projects', list('string'), 'listed']), 'optional'],
      ['relationships', list('value'), 'listed'], ['custom_fields', 'value', 'optional'],
    ), 'optional'],
    ['prose', struct(['user_profile', 'string', 'optional']), 'optional'],
    ['source_format', 'string', 'optional'], ['raw_source', 'value', 'optional'],
  ), 'required'],
)), 'required']);
const CREDENTIALS = struct(['credentials', list(struct(
  ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['service', 'string', 'required'], ['credential_type', 'string', 'required'],
  ['encrypted_payload', 'string', 'required'],
  ['encryption', struct(['algorithm', 'string', 'required'], ['nonce', 'string', 'required'], ['kdf', 'string', 'optional'],
    ['kdf_params', struct(['memory_cost', 'u64', 'optional'], ['time_cost', 'u32', 'optional'], ['parallelism', 'u32', 'optional']), 'optional']), 'required'],
  ['created_at', 'time', 'required'], ['label', 'string', 'optional'], ['capabilities_granted', list('string'), 'listed'],
  ['updated_at', 'time', 'optional'], ['last_rotated_at', 'time', 'optional'], ['expires_at', 'time', 'optional'], ['tags', list('string'), 'listed'],
)), 'required']);
const ATTACHMENTS = struct(['artifact_size_threshold', 'u64', 'optional'], ['attachments', list(struct(
  ['id', 'uuid', 'required'], ['filename', 'string', 'required'], ['media_type', 'string', 'required'], ['size_bytes', 'u64', 'required'],
  ['hash', struct(['algorithm', 'string', 'required'], ['value', 'string', 'required']), 'required'], ['source_path', 'string', 'required'],
  ['archive_path', 'string', 'optional'], ['remote_ref', 'string', 'optional'], ['referenced_by', list('uuid'), 'listed'],
)), 'required']);

const LAYER_STRUCTS: Record<LayerName, Struct> = { identity: IDENTITY, principals: PRINCIPALS, credentials: CREDENTIALS, attachments: ATTACHMENTS };

const wrong = (path: string, value: JsonValue, what: string) => `${path} ${shownValue(value)} is not ${what}`;

const whatOf = (shape: Shape): string =>
  typeof shape === 'string' ? (shape === 'value' ? 'a value' : WHAT[shape]) : 'list' in shape ? 'an array' : 'an object';

/** The first field of `value` (at `path`) that `shape` refuses, or null. */
function wrongShape(value: JsonValue, shape: Shape, path: string): string | null {
  if (shape === 'value') return null;
  if (typeof shape === 'string') return isKind(value, shape) ? null : wrong(path, value, WHAT[shape]);
  if ('fields' in shape) return isObject(value) ? wrongFields(value, shape, `${path}.`) : wrong(path, value, 'an object');
  if ('map' in shape) {
    if (!isObject(value)) return wrong(path, value, `an object of ${WHAT[shape.map]} values`);
    for (const key in value) if (!isKind(value[key]!, shape.map)) return wrong(`${path}.${key}`, value[key]!, WHAT[shape.map]);
    return null;
  }
  if (!Array.isArray(value)) return wrong(path, value, 'an array');
  for (let i = 0; i < value.length; i++) {
    const found = wrongShape(value[i]!, shape.list, `${path}[${i}]`);
    if (found !== null) return found;
  }
  return null;
}

function wrongFields(holder: JsonFields, rules: Struct, at: string): string | null {
  for (const [name, shape, need] of rules.fields) {
    const value = holder[name];
    if (value === undefined) {
      if (need === 'required') return `${at}${name} is missing`;
      continue;
    }
    if (value === null) {
      if (need === 'optional' || shape === 'value') continue;
      return wrong(`${at}${name}`, value, whatOf(shape));
    }
    const found = wrongShape(value, shape, `${at}${name}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The first known field of the layer document `doc` that the reference reader refuses — missing
 * when required, null where it takes none, of another JSON type — said with its path
 * (`principals[0].profile.version "2" is not a whole number 0 to 4294967295`); null when it reads it.
 */
export function wrongTypedLayerField(layer: LayerName, doc: JsonFields): string | null {
  return wrongFields(doc, LAYER_STRUCTS[layer], '');
}

/**
 * The manifests' structs in the reference reader (CONTRACT §3.1/§3.2, manifest.schema.json,
 * delta-manifest.schema.json): a field the schema requires is required there, the others are
 * `Option`s (absent or null; a layer's entry `layers.identity: null` is not listed). Only JSON
 * types: formats (`alf_version`'s pattern, a partition's dates, minimums) are validate's.
 * `layers.X.file` / `changes.X.file` are checked further by lib/core/archive/layer-refs.ts.
 */
const COUNTED_LAYER = struct(['count', 'u64', 'required'], ['file', 'string', 'required']);
const SNAPSHOT_MANIFEST = struct(
  ['alf_version', 'string', 'required'], ['created_at', 'time', 'required'],
  ['agent', struct(['id', 'uuid', 'required'], ['name', 'string', 'required'], ['source_runtime', 'string', 'required'],
    ['source_runtime_version', 'string', 'optional']), 'required'],
  ['runtime_hints', struct(['primary_model', 'string', 'required'], ['last_model', 'string', 'required'], ['provider', 'string', 'optional'],
    ['context_window', 'u64', 'optional'], ['notes', 'string', 'optional']), 'optional'],
  ['sync', struct(['last_sequence', 'u64', 'required'], ['last_sync_at', 'time', 'optional']), 'optional'],
  ['layers', struct(
    ['identity', struct(['version', 'u32', 'required'], ['file', 'string', 'required']), 'optional'],
    ['principals', COUNTED_LAYER, 'optional'], ['credentials', COUNTED_LAYER, 'optional'],
    ['memory', struct(
      ['record_count', 'u64', 'required'], ['index_file', 'string', 'required'],
      ['partitions', list(struct(['file', 'string', 'required'], ['from', 'string', 'required'], ['to', 'string', 'optional'],
        ['record_count', 'u64', 'required'], ['sealed', 'boolean', 'required'])), 'required'],
      ['has_embeddings', 'boolean', 'optional'], ['has_raw_source', 'boolean', 'optional'],
    ), 'optional'],
    ['attachments', struct(['count', 'u64', 'required'], ['file', 'string', 'required'], ['included_count', 'u64', 'optional'],
      ['included_size_bytes', 'u64', 'optional'], ['referenced_count', 'u64', 'optional'], ['referenced_size_bytes', 'u64', 'optional']), 'optional'],
  ), 'required'],
  ['raw_sources', list('string'), 'listed'], ['checksum', 'string', 'optional'],
);
const DELTA_MANIFEST = struct(
  ['alf_version', 'string', 'required'], ['created_at', 'time', 'required'],
  ['agent', struct(['id', 'uuid', 'required'], ['source_runtime', 'string', 'optional']), 'required'],
  ['sync', struct(['base_sequence', 'u64', 'required'], ['new_sequence', 'u64', 'required'], ['base_timestamp', 'time', 'optional'],
    ['new_timestamp', 'time', 'optional']), 'required'],
  ['changes', struct(
    ['identity', struct(['file', 'string', 'optional'], ['new_version', 'u32', 'optional']), 'optional'],
    ['principals', struct(['file', 'string', 'optional'], ['changed_ids', list('uuid'), 'listed']), 'optional'],
    ['credentials', struct(['file', 'string', 'optional']), 'optional'],
    ['memory', struct(['file', 'string', 'optional'], ['record_count', 'u64', 'optional']), 'optional'],
    ['raw', struct(['changed', list('string'), 'listed'], ['deleted', list('string'), 'listed']), 'optional'],
  ), 'required'],
);

/**
 * The first known field of a manifest (`manifest.json` of a snapshot, `delta-manifest.json` of a
 * delta) that the reference reader refuses — missing when required, null where it takes none, of
 * another JSON type — said with its path (`layers.memory.record_count "3" is not a whole number 0
 * or more`); null when it reads it.
 */
export function wrongTypedManifestField(kind: 'snapshot' | 'delta', manifest: JsonFields): string | null {
  return wrongFields(manifest, kind === 'snapshot' ? SNAPSHOT_MANIFEST : DELTA_MANIFEST, '');
}
