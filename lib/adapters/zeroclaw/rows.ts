import { isJsonObject, type JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import { encodeEmbedding } from './embedding';
import { sqlNumber } from './sqlite-io';
import { unrestorableRecord } from '@/lib/adapters/shared/errors';

/** Keys of `raw_source_format` that describe the row but are not columns. */
const RAW_ONLY_KEYS = new Set(['embedding_encoding', 'embedding_base64']);

/**
 * Rebuilds the native `memories` row of a record for restore, limited to the columns
 * the target table has. Native columns come from `raw_source_format` (so a ZeroClaw
 * export round-trips exactly); records from other runtimes fall back to their ALF
 * fields (key = `alf:<record id>`, category = record category or `core`).
 */
export function recordToRow(record: MemoryRecord, args: {
  /** The row's `agent_id`, or null in the single-agent layout (no such column). */
  agentNativeId: unknown;
  columns: readonly string[];
}): Record<string, unknown> {
  const raw: JsonObject = isJsonObject(record.raw_source_format) ? record.raw_source_format : {};
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(raw, key) && !RAW_ONLY_KEYS.has(key);
  const createdAt = has('created_at') ? raw.created_at : record.temporal.created_at;
  const row: Record<string, unknown> = {
    id: has('id') ? raw.id : record.id,
    key: has('key') ? raw.key : `alf:${record.id}`,
    content: record.content,
    category: has('category') ? raw.category : (record.category ?? 'core'),
    embedding: embeddingBlob(record, raw) ?? (has('embedding') ? raw.embedding : null),
    created_at: createdAt,
    updated_at: has('updated_at') ? raw.updated_at : (record.temporal.updated_at ?? createdAt),
    session_id: has('session_id') ? raw.session_id : (record.source.session_id ?? null),
    namespace: has('namespace') ? raw.namespace : record.namespace,
    importance: has('importance') ? raw.importance : (record.confidence ?? 0.5),
    superseded_by: has('superseded_by') ? raw.superseded_by : null,
  };
  for (const key of Object.keys(raw)) {
    if (!(key in row) && !RAW_ONLY_KEYS.has(key)) row[key] = raw[key];
  }
  if (args.agentNativeId !== null) row.agent_id = args.agentNativeId;
  const out: Record<string, unknown> = {};
  for (const column of args.columns) if (column in row) out[column] = bindable(row[column], record.id, column);
  return out;
}

/**
 * SQLite binds null, numbers (a whole one as an INTEGER: `sqlNumber`), strings and BLOBs; booleans become 0/1; `{"$base64": "..."}` is a
 * BLOB column value (`records.ts`); anything else is bad input.
 */
function bindable(value: unknown, recordId: string, column: string): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return sqlNumber(value);
  if (value === null || typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (isJsonObject(value) && typeof value.$base64 === 'string' && Object.keys(value).length === 1) return Buffer.from(value.$base64, 'base64');
  throw unrestorableRecord(`record ${recordId}: its raw_source_format.${column} is ${JSON.stringify(value).slice(0, 200)}, which no column holds`);
}

/** The embedding BLOB: base64 verbatim, else the first vector in its recorded encoding (f32 by default). */
function embeddingBlob(record: MemoryRecord, raw: JsonObject): Buffer | null {
  if (raw.embedding_encoding === 'base64' && typeof raw.embedding_base64 === 'string') {
    return Buffer.from(raw.embedding_base64, 'base64');
  }
  const first = record.embeddings?.[0];
  if (!isJsonObject(first) || !Array.isArray(first.vector)) return null;
  const vector = first.vector.map((v) => (typeof v === 'number' ? v : 0));
  return encodeEmbedding(vector, raw.embedding_encoding === 'f64le' ? 'f64le' : 'f32le');
}
