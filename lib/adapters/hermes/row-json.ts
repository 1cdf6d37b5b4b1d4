import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { unrestorableRecord } from '@/lib/adapters/shared/errors';
import { sqlNumber } from '@/lib/adapters/zeroclaw/sqlite-io';

/**
 * SQLite row ↔ JSON, lossless for the value kinds `state.db` holds. BLOBs (which
 * Hermes does not use, but a newer schema might) travel as `{"$base64": "..."}`.
 * Keys are sorted so the JSON is canonical.
 */
export function rowToJson(row: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(row).sort()) out[key] = valueToJson(row[key]);
  return out;
}

function valueToJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return { $base64: Buffer.from(value).toString('base64') };
  return String(value);
}

/**
 * The inverse of `rowToJson` for one value (a whole number an INTEGER, `sqlNumber`: an untyped column keeps
 * what it is given); anything else is rejected as bad input.
 */
export function jsonToSqlValue(value: JsonValue | undefined, where: string): string | number | bigint | Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return sqlNumber(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (isJsonObject(value) && typeof value.$base64 === 'string' && Object.keys(value).length === 1) {
    return Buffer.from(value.$base64, 'base64');
  }
  throw unrestorableRecord(`${where} is ${JSON.stringify(value).slice(0, 200)}, which no column holds`);
}
