import { isJsonObject, type JsonObject, type JsonValue } from './json';

/** `source` of a memory record (CONTRACT §4.1). Unknown keys are preserved. */
export interface RecordSource extends JsonObject {
  runtime: string;
  runtime_version?: string;
  origin?: string;
  origin_file?: string;
  extraction_method?: string;
  session_id?: string;
  interaction_id?: string;
  identity_version?: number;
}

/** `temporal` of a memory record. Unknown keys are preserved. */
export interface RecordTemporal extends JsonObject {
  created_at: string;
  updated_at?: string | null;
  observed_at?: string | null;
  valid_from?: string | null;
  valid_until?: string | null;
  last_accessed_at?: string | null;
  access_count?: number;
}

/**
 * An ALF memory record with every field of the schema. It is a plain JSON object:
 * unknown keys at any level ride along untouched through read, reconcile and write.
 */
export interface MemoryRecord extends JsonObject {
  id: string;
  agent_id: string;
  content: string;
  memory_type: string;
  category?: string;
  source: RecordSource;
  temporal: RecordTemporal;
  status: string;
  supersedes?: string;
  confidence?: number;
  entities?: JsonValue[];
  tags?: string[];
  namespace: string;
  embeddings?: JsonValue[];
  related_records?: JsonValue[];
  raw_source_format?: JsonObject;
}

export const MEMORY_TYPES = ['semantic', 'episodic', 'procedural', 'preference', 'summary'] as const;
export const RECORD_STATUSES = ['active', 'superseded', 'archived', 'deleted'] as const;

/** Field order used when we write a record (the schema's property order); unknown keys follow. */
const FIELD_ORDER = [
  'id', 'agent_id', 'content', 'memory_type', 'category', 'source', 'temporal', 'status', 'supersedes',
  'confidence', 'entities', 'tags', 'namespace', 'embeddings', 'related_records', 'raw_source_format',
] as const;

/** Returns the record with known fields in schema order, unknown keys after, `undefined` dropped. */
export function orderRecordFields(record: MemoryRecord): MemoryRecord {
  const out: JsonObject = {};
  const written = new Set<string>();
  const put = (key: string) => {
    written.add(key);
    // A hostile own "__proto__" key must stay data, never become the object's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: record[key], enumerable: true, writable: true, configurable: true });
    else out[key] = record[key];
  };
  for (const key of FIELD_ORDER) if (record[key] !== undefined) put(key);
  for (const key of Object.keys(record)) if (!written.has(key) && record[key] !== undefined) put(key);
  return out as MemoryRecord;
}

/**
 * `JSON.stringify(orderRecordFields(record))`, without building the reordered copy when the
 * record's keys are already in that order (records we extracted or reconciled always are): known
 * fields in schema order, then unknown keys. Anything else (an index-like or `__proto__` key, a
 * known field after an unknown one) takes the copying path.
 */
export function recordJson(record: MemoryRecord): string {
  return inWriteOrder(record) ? JSON.stringify(record) : JSON.stringify(orderRecordFields(record));
}

function inWriteOrder(record: MemoryRecord): boolean {
  let next = 0;
  let unknownSeen = false;
  for (const key of Object.keys(record)) {
    const rank = FIELD_RANK.get(key);
    if (rank === undefined) {
      if (key === '__proto__' || /^\d/.test(key)) return false;
      unknownSeen = true;
    } else {
      if (unknownSeen || rank < next) return false;
      next = rank + 1;
    }
  }
  return true;
}

const FIELD_RANK = new Map<string, number>(FIELD_ORDER.map((key, index) => [key, index]));

/** Reconcile scope: the origin file, else `ns:<namespace>` (CONTRACT §5). */
export function recordScope(record: MemoryRecord): string {
  const file = record.source.origin_file;
  return typeof file === 'string' && file.length > 0 ? file : `ns:${record.namespace}`;
}

/** Partition key timestamp: observed_at if present, else created_at (§3.4). */
export function partitionTimestamp(record: MemoryRecord): string {
  const observed = record.temporal.observed_at;
  return typeof observed === 'string' && observed.length > 0 ? observed : record.temporal.created_at;
}

export class RecordShapeError extends Error {
  constructor(readonly path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'RecordShapeError';
  }
}

/**
 * Checks the structural minimum every reader relies on (ids, content, source.runtime,
 * temporal.created_at) and returns the value typed as a record. Enum values are not checked here.
 */
export function asMemoryRecord(value: unknown, path = 'record'): MemoryRecord {
  if (!isJsonObject(value)) throw new RecordShapeError(path, 'expected a JSON object');
  for (const key of ['id', 'agent_id', 'content', 'memory_type', 'status', 'namespace'] as const) {
    if (typeof value[key] !== 'string') throw new RecordShapeError(`${path}.${key}`, 'expected a string');
  }
  if (!isJsonObject(value.source) || typeof value.source.runtime !== 'string') {
    throw new RecordShapeError(`${path}.source.runtime`, 'expected a string');
  }
  if (!isJsonObject(value.temporal) || typeof value.temporal.created_at !== 'string') {
    throw new RecordShapeError(`${path}.temporal.created_at`, 'expected a string');
  }
  return value as MemoryRecord;
}
