/**
 * The JSON types the reference `alf` reader's structs give known fields (serde derive; CONTRACT
 * §3/§4.1, the schemas in ../shared/alf/schemas): what a field of each kind must hold for that
 * reader to read it (`isKind`), and the layer documents' structs (`identity.json`, `principals.json`,
 * `credentials.json`, `attachments.json`: alf-core identity.rs, principals.rs, credentials.rs and
 * manifest.rs's AttachmentsIndex) with `wrongTypedLayerField`, the first field of a layer document
 * that reader refuses, and the manifests' with `wrongTypedManifestField`. The structs themselves are
 * lib/core/reader-structs.ts's; the record's fields are checked by `wrongTypedField`
 * (lib/ledger/ingest-checks.ts) from the same table with the same kinds. Unknown keys and `serde_json::Value`s hold
 * anything; enum fields (`principal_type`, `credential_type`, a capability's `portability`, a
 * sub-agent's `status`) any string; an `Option` may be absent or null; a list with a default may be
 * absent, not null.
 */
import { echoInput } from './echo';
import { isJsonObject, type JsonObject, type JsonValue } from './json';
import type { LayerName } from './archive/types';
import { isFullDate } from './archive/partitions';
import { DELTA_MANIFEST, LAYER_STRUCTS, RECORD, SNAPSHOT_MANIFEST, type Kind, type Shape, type Struct } from './reader-structs';

export type { Kind } from './reader-structs';

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
 * 32 hex digits, braced or `urn:uuid:`; its hex digits in any case, but the `urn:uuid:` prefix only
 * in lower case (the crate strips that prefix byte for byte: `URN:UUID:…` is refused).
 */
const HEX = (n: number): string => `[0-9a-fA-F]{${n}}`;
const HYPHENATED = [8, 4, 4, 4, 12].map(HEX).join('-');
export const REFERENCE_UUID = new RegExp(`^(?:${HEX(32)}|${HYPHENATED}|\\{${HYPHENATED}\\}|urn:uuid:${HYPHENATED})$`);

/**
 * A record id's text form: a UUID, lowercase hyphenated (CONTRACT §4.1 `id` (uuid), §4.2 "UUID text
 * form: lowercase hyphenated", the form the reference writer and every adapter write). A ledger keys
 * records by the id's text (the history index's lineages, search, a restore's fold), so it takes only
 * this form: one UUID in two forms would be two records there. The reference reader takes any form of
 * {@link REFERENCE_UUID}; `lineage validate` warns of the others (lib/core/validate/documents.ts).
 */
const RECORD_ID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export function isRecordIdForm(id: unknown): id is string {
  return typeof id === 'string' && RECORD_ID_FORM.test(id);
}

/** Why a ledger refuses `id` as a record's id, or null when it takes it ({@link isRecordIdForm}). */
export function recordIdProblem(id: unknown): string | null {
  if (isRecordIdForm(id)) return null;
  if (typeof id !== 'string' || !REFERENCE_UUID.test(id)) return `record id ${JSON.stringify(id ?? null)} is not a UUID`;
  return `record id ${JSON.stringify(id)} is not in the lowercase hyphenated form 8-4-4-4-12 (CONTRACT §4.2): `
    + `a ledger keys records by the id's text, and one UUID written in two forms would be two records`;
}

const U32_MAX = 4_294_967_295;
/** u64's largest, as a JSON number parses: 2^64 (the text of 2^64 - 1 parses to it too, and must pass). */
const U64_MAX = 2 ** 64;

export const WHAT: Record<Kind, string> = {
  string: 'a string', uuid: 'a UUID', number: 'a number', u32: 'a whole number 0 to 4294967295', u64: 'a whole number 0 or more',
  time: 'an RFC 3339 time with a year 0000-9999', date: 'a date YYYY-MM-DD', boolean: 'true or false',
};

export function isKind(value: JsonValue, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'uuid': return typeof value === 'string' && REFERENCE_UUID.test(value);
    case 'number': return typeof value === 'number';
    case 'u32': return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= U32_MAX;
    case 'u64': return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= U64_MAX;
    case 'time': return typeof value === 'string' && isKnownRfc3339(value);
    case 'date': return typeof value === 'string' && isFullDate(value);
    case 'boolean': return typeof value === 'boolean';
  }
}

/** A value as an error message repeats it: its JSON, cut as `echoInput` cuts (a 300,000-character time was repeated whole). */
export const shownValue = (value: JsonValue): string => echoInput(JSON.stringify(value));

/** How a refused value reads: `path value is not what` (`tags[1] 2 is not a string`). */
export const wrongValue = (path: string, value: JsonValue, what: string): string => `${path} ${shownValue(value)} is not ${what}`;
const wrong = wrongValue;

const whatOf = (shape: Shape): string =>
  typeof shape === 'string' ? (shape === 'value' ? 'a value' : WHAT[shape]) : 'list' in shape ? 'an array' : 'an object';

/** The first field of `value` (at `path`) that `shape` refuses, or null. */
function wrongShape(value: JsonValue, shape: Shape, path: string): string | null {
  if (shape === 'value') return null;
  if (typeof shape === 'string') return isKind(value, shape) ? null : wrong(path, value, WHAT[shape]);
  if ('fields' in shape) return isJsonObject(value) ? wrongFields(value, shape, `${path}.`) : wrong(path, value, 'an object');
  if ('map' in shape) {
    if (!isJsonObject(value)) return wrong(path, value, `an object of ${WHAT[shape.map]} values`);
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

function wrongFields(holder: JsonObject, rules: Struct, at: string): string | null {
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
export function wrongTypedLayerField(layer: LayerName, doc: JsonObject): string | null {
  return wrongFields(doc, LAYER_STRUCTS[layer], '');
}

/**
 * The first known field of a manifest (`manifest.json` of a snapshot, `delta-manifest.json` of a
 * delta) that the reference reader refuses — missing when required, null where it takes none, of
 * another JSON type — said with its path (`layers.memory.record_count "3" is not a whole number 0
 * or more`); null when it reads it.
 */
export function wrongTypedManifestField(kind: 'snapshot' | 'delta', manifest: JsonObject): string | null {
  return wrongFields(manifest, kind === 'snapshot' ? SNAPSHOT_MANIFEST : DELTA_MANIFEST, '');
}

/**
 * The first known field of a record that the reference reader refuses, said as above (`temporal.access_count
 * 100000000000000000000 is not a whole number 0 or more`); null when it reads it. For `validate`
 * (lib/core/validate/documents.ts); ingest has its own walk of the same struct (`wrongTypedField`).
 */
export function wrongTypedRecordField(record: JsonObject): string | null {
  return wrongFields(record, RECORD, '');
}
