/** JSON value types and canonical serialization shared by the core. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Canonical JSON: keys sorted at every level, `undefined` members dropped.
 * Two values are "equal" in the reference's sense (serde_json Value equality,
 * key-order-insensitive) exactly when their canonical forms are equal.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = value[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

/**
 * Structural equality of JSON values, key-order-insensitive, `undefined` members ignored:
 * the same answer as comparing canonical forms, without serializing anything.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b) || Array.isArray(b)) return false;
    let defined = 0;
    for (const key of Object.keys(a)) {
      const value = a[key];
      if (value === undefined) continue;
      defined++;
      if (!jsonEqual(value, ownMember(b, key))) return false;
    }
    for (const key of Object.keys(b)) if (b[key] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

function ownMember(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}
