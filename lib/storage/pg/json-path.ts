/**
 * SQLite's `CASE WHEN json_valid(j) THEN json_extract(j, '$.a.b') END`, read in JS from a record's
 * stored JSON on PostgreSQL (a `::jsonb` cast would fail the whole query on one bad row, and `#>>`
 * turns numbers into text where SQLite keeps them numbers). Callers keep only strings.
 */

/** The parsed JSON text; undefined when it is not valid JSON (`json_valid` false). */
export function parsedJson(json: string | null): unknown {
  if (json === null) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** `json_extract` at an object path: null for a missing key or JSON null, an object or array as its JSON text. */
function extract(value: unknown, path: readonly string[]): unknown {
  if (value === undefined) return null;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  if (value === null || value === undefined) return null;
  return typeof value === 'object' ? JSON.stringify(value) : value;
}

/**
 * `coalesce(json_extract(j, p1), json_extract(j, p2), …)` of a parsed JSON value, kept only when
 * it is a string (the first path with a non-null value decides, string or not), else null.
 */
export function stringAt(value: unknown, ...paths: (readonly string[])[]): string | null {
  for (const path of paths) {
    const found = extract(value, path);
    if (found !== null) return typeof found === 'string' ? found : null;
  }
  return null;
}
