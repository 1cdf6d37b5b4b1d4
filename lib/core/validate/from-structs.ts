/**
 * Validate's type rules, derived from the reference reader's structs (lib/core/reader-structs.ts,
 * the one description ingest's typed checks and the duplicate-key levels come from too): a
 * `required` field is required, an `optional` one (an `Option`) takes null, a `listed` one (a list
 * with a default) may be absent but is not null; a `u32` is an integer 0 to 4294967295, a `u64` an
 * integer 0 to 18446744073709551615 (which a JSON number parses to 2^64, so 2^64 passes, as in
 * `isKind`); a `uuid`, `time` or `date` a string of that format (`isKind`, as ingest); a struct an
 * object of its fields, a list an array of its items.
 *
 * What the reference validator (validation.rs) and the schemas say beyond the reader — a non-empty
 * name, a pattern, a minimum of 1, the known enum values, a check across fields — is validate's own
 * and given here as `Own`, by field name; a name the struct does not know throws when the rules are
 * built, so a renamed field cannot drop a rule unseen.
 */
import { isStruct, type Kind, type Need, type Shape, type Struct } from '../reader-structs';
import { any, arr, bool, checkValue, child, int, num, obj, str, type Check, type Rule } from './rules';

/** Validate's own rules for one field (for a list, its items; for a map, each of its values) beyond the reader's type. */
export interface Own {
  minLength?: number;
  pattern?: RegExp;
  known?: readonly string[];
  min?: number;
  max?: number;
  /** A check of a struct's value (across its fields) once its fields are checked. */
  check?: Check;
  /** The own rules of a struct's fields. */
  fields?: Record<string, Own>;
}

const U32_MAX = 4_294_967_295;
/** u64's largest as a JSON number parses (2^64: 18446744073709551615 rounds to it), and as it is said. */
const U64_MAX = 2 ** 64;
const U64_MAX_TEXT = '18446744073709551615';

/** The rule of a struct held as `need` (a document's top level: `listed`, neither required nor null). */
export function structFrom(struct: Struct, own: Own = {}, need: Need = 'listed'): Rule {
  return shapeRule(struct, need, own);
}

function shapeRule(shape: Shape, need: Need, own: Own): Rule {
  const { fields, check, ...scalar } = own;
  const held = { required: need === 'required', nullable: need === 'optional' };
  if (shape === 'value') return any({ required: held.required });
  if (typeof shape === 'string') return kindRule(shape, { ...held, ...scalar });
  if (isStruct(shape)) return obj(fieldRules(shape, fields ?? {}), { ...held, check });
  if ('list' in shape) return arr(shapeRule(shape.list, 'listed', own), held);
  const values = kindRule(shape.map, scalar);
  return obj({}, { ...held, check: (map, path, issues) => Object.keys(map).forEach((key) => checkValue(map[key], values, child(path, key), issues)) });
}

function fieldRules(struct: Struct, own: Record<string, Own>): Record<string, Rule> {
  const unknown = Object.keys(own).filter((name) => !struct.fields.some(([field]) => field === name));
  if (unknown.length > 0) throw new Error(`validate's own rules name fields the reader's struct does not know: ${unknown.join(', ')}`);
  return Object.fromEntries(struct.fields.map(([name, shape, need]) => [name, shapeRule(shape, need, own[name] ?? {})]));
}

type Options = { required: boolean; nullable: boolean } & Omit<Own, 'check' | 'fields'>;

function kindRule(kind: Kind, o: Partial<Options>): Rule {
  switch (kind) {
    case 'string': return str(o);
    case 'uuid': return str({ ...o, format: 'uuid' });
    case 'time': return str({ ...o, format: 'date-time' });
    case 'date': return str({ ...o, format: 'date' });
    case 'number': return num(o);
    case 'u32': return int({ min: 0, max: U32_MAX, ...o });
    case 'u64': return int({ min: 0, max: U64_MAX, maxText: U64_MAX_TEXT, ...o });
    case 'boolean': return bool(o);
  }
}
