import { isJsonObject, type JsonObject } from '../json';
import { isKind } from '../typed-fields';

/** One finding: where (`file#/json/pointer`) and what. */
export interface Issue {
  path: string;
  message: string;
}

/** Collects errors (the archive is invalid) and warnings (valid, but worth a look). */
export class Issues {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];

  /**
   * `strictCrypto`: `validate --strict-crypto` (CONTRACT §2.3), the reference's strict credential
   * checks: a credential with no ciphertext (`algorithm: "none"`) or an unknown algorithm is an error,
   * not a warning (reference-rules.ts `checkCredential`).
   */
  constructor(readonly strictCrypto = false) {}

  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }
}

type Format = 'date-time' | 'date' | 'uuid';
/** A check of an object's value once its fields are checked (across fields, or a validator's own rule). */
export type Check = (value: JsonObject, path: string, issues: Issues) => void;

/**
 * A small declarative subset of the JSON schemas in `alf/schemas/`: enough to say
 * which fields are required and what type they hold. `known` lists enum values that
 * only warn when different (the spec says validators MUST NOT reject unknown values).
 *
 * `nullable`: null is taken as absent. The reference `alf validate` reads the archive with its
 * reader first (serde, alf-core memory.rs/manifest.rs) and checks the structs it got, so a field
 * that is an `Option` there takes null (`category: null` reads as no category) although the schema
 * says `"type": "string"`. The records', manifests' and layer documents' rules are derived from that
 * reader's structs (from-structs.ts), as ingest's typed checks are.
 */
export type Rule =
  | { kind: 'string'; required?: boolean; nullable?: boolean; format?: Format; minLength?: number; pattern?: RegExp; known?: readonly string[] }
  | { kind: 'integer'; required?: boolean; nullable?: boolean; min?: number; max?: number; maxText?: string }
  | { kind: 'number'; required?: boolean; nullable?: boolean; min?: number; max?: number }
  | { kind: 'boolean'; required?: boolean; nullable?: boolean }
  | { kind: 'array'; required?: boolean; nullable?: boolean; items?: Rule }
  | { kind: 'object'; required?: boolean; nullable?: boolean; fields?: Record<string, Rule>; check?: Check }
  | { kind: 'any'; required?: boolean };

/** Rule builders: `str({ required: true })` reads closer to the schema than object literals. */
type Options<K extends Rule['kind']> = Omit<Extract<Rule, { kind: K }>, 'kind'>;
export const str = (o: Options<'string'> = {}): Rule => ({ kind: 'string', ...o });
export const int = (o: Options<'integer'> = {}): Rule => ({ kind: 'integer', ...o });
export const num = (o: Options<'number'> = {}): Rule => ({ kind: 'number', ...o });
export const bool = (o: Options<'boolean'> = {}): Rule => ({ kind: 'boolean', ...o });
export const arr = (items: Rule | undefined, o: Omit<Options<'array'>, 'items'> = {}): Rule => ({ kind: 'array', items, ...o });
export const obj = (fields: Record<string, Rule> = {}, o: Omit<Options<'object'>, 'fields'> = {}): Rule => ({ kind: 'object', fields, ...o });
export const any = (o: Options<'any'> = {}): Rule => ({ kind: 'any', ...o });

/** JSON-pointer child path with `~` and `/` escaped. */
export function child(path: string, key: string | number): string {
  const token = String(key).replace(/~/g, '~0').replace(/\//g, '~1');
  return path.includes('#') ? `${path}/${token}` : `${path}#/${token}`;
}

/** Checks `value` against `rule`, reporting under `path`. */
export function checkValue(value: unknown, rule: Rule, path: string, issues: Issues): void {
  if (value === null && 'nullable' in rule && rule.nullable) return;
  switch (rule.kind) {
    case 'any':
      return;
    case 'string':
      return checkString(value, rule, path, issues);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return issues.error(path, 'expected an integer');
      if (rule.min !== undefined && value < rule.min) issues.error(path, `must be at least ${rule.min}`);
      if (rule.max !== undefined && value > rule.max) issues.error(path, `must be at most ${rule.maxText ?? rule.max}`);
      return;
    case 'number':
      if (typeof value !== 'number') return issues.error(path, 'expected a number');
      if (rule.min !== undefined && value < rule.min) issues.error(path, `must be at least ${rule.min}`);
      if (rule.max !== undefined && value > rule.max) issues.error(path, `must be at most ${rule.max}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') issues.error(path, 'expected a boolean');
      return;
    case 'array':
      if (!Array.isArray(value)) return issues.error(path, 'expected an array');
      if (rule.items) value.forEach((item, index) => checkValue(item, rule.items!, child(path, index), issues));
      return;
    case 'object':
      if (!isJsonObject(value)) return issues.error(path, 'expected an object');
      checkFields(value, rule.fields ?? {}, path, issues);
      rule.check?.(value, path, issues);
      return;
  }
}

/** Checks the listed fields of an object; keys not listed are allowed (additionalProperties). */
export function checkFields(value: JsonObject, fields: Record<string, Rule>, path: string, issues: Issues): void {
  for (const [key, rule] of Object.entries(fields)) {
    const member = value[key];
    if (member === undefined) {
      if (rule.required) issues.error(child(path, key), 'is required');
      continue;
    }
    checkValue(member, rule, child(path, key), issues);
  }
}

function checkString(value: unknown, rule: Extract<Rule, { kind: 'string' }>, path: string, issues: Issues): void {
  if (typeof value !== 'string') return issues.error(path, rule.nullable ? 'expected a string or null' : 'expected a string');
  if (rule.minLength !== undefined && value.length < rule.minLength) {
    return issues.error(path, rule.minLength === 1 ? 'must not be empty' : `must be at least ${rule.minLength} characters`);
  }
  if (rule.pattern && !rule.pattern.test(value)) return issues.error(path, `does not match ${rule.pattern.source}`);
  if (rule.format && !matchesFormat(value, rule.format)) return issues.error(path, `is not a valid ${rule.format}`);
  if (rule.known && !rule.known.includes(value)) {
    issues.warn(path, `unknown value ${JSON.stringify(value)} (known: ${rule.known.join(', ')})`);
  }
}

/**
 * Formats as the reference reader parses them, since `alf validate` reads with it, and as ingest
 * takes them (typed-fields.ts `isKind`): a `Uuid` field takes any text the uuid crate parses
 * (hyphenated, 32 hex digits, braced, `urn:uuid:`; any case), times and dates are RFC 3339
 * (`date-time`) and its full-date (`date`). The reference's chrono reads a relaxed RFC 3339 too
 * (unpadded fields, spaces between parts, `UTC`, an offset without its colon, signed years past
 * 9999): those are errors here and refused by ingest all the same, as no RFC 3339 reader — ours,
 * the dashboard's, a restore's — reads them.
 */
const FORMAT_KIND = { 'date-time': 'time', date: 'date', uuid: 'uuid' } as const;
function matchesFormat(value: string, format: Format): boolean {
  return isKind(value, FORMAT_KIND[format]);
}
