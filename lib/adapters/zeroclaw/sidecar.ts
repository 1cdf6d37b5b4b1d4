import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';

/** The parts of `.alf-brain-db-schema.json` restore uses. */
export interface BrainSidecar {
  /**
   * The exported agent's `agents` row, every column as the source held it (a NULL or a number
   * `created_at` included; a BLOB as `{"$base64": …}`); null in the single-agent layout.
   */
  agent: { id: string | number; alias: string; row: JsonObject } | null;
  schemaVersion: { component: string; version: number; applied_at: string }[];
  /** The source database's `CREATE` statements, in order (`captureDdl`); null when the sidecar has none. */
  ddl: string[] | null;
}

/**
 * Reads the sidecar leniently: it comes from an untrusted archive, so anything not
 * of the expected shape is ignored rather than trusted (its DDL is checked before use: `schema.ts`).
 */
export function parseBrainSidecar(bytes: Uint8Array | undefined): BrainSidecar {
  const empty: BrainSidecar = { agent: null, schemaVersion: [], ddl: null };
  if (bytes === undefined) return empty;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return empty;
  }
  if (!isJsonObject(doc)) return empty;
  const agent = isJsonObject(doc.agent) && (typeof doc.agent.id === 'string' || typeof doc.agent.id === 'number') && typeof doc.agent.alias === 'string'
    ? { id: doc.agent.id, alias: doc.agent.alias, row: columnValues(doc.agent) }
    : null;
  const schemaVersion = (Array.isArray(doc.schema_version) ? doc.schema_version : []).flatMap((row) =>
    isJsonObject(row) && typeof row.component === 'string' && typeof row.version === 'number' && typeof row.applied_at === 'string'
      ? [{ component: row.component, version: row.version, applied_at: row.applied_at }]
      : [],
  );
  const ddl = Array.isArray(doc.ddl) && doc.ddl.every((s) => typeof s === 'string') ? (doc.ddl as string[]) : null;
  return { agent, schemaVersion, ddl };
}

/** The entries that a column can hold: scalars and `{"$base64": …}` (anything else is left out). */
function columnValues(row: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [column, value] of Object.entries(row)) if (isColumnValue(value)) out[column] = value;
  return out;
}

function isColumnValue(value: JsonValue | undefined): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true;
  return isJsonObject(value) && typeof value.$base64 === 'string' && Object.keys(value).length === 1;
}
