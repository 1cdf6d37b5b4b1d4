import { MEMORY_TYPES, RECORD_STATUSES } from '../record';
import { RECORD } from '../reader-structs';
import { warnUnknownKeys } from './reference-rules';
import { isJsonObject, type JsonObject } from '../json';
import { structFrom } from './from-structs';
import { child, type Issues, type Rule } from './rules';

export const EXTRACTION_METHODS = ['agent_written', 'llm_extracted', 'user_authored', 'migrated'] as const;
export const ENTITY_TYPES = ['person', 'organization', 'project', 'location', 'tool', 'service', 'other'] as const;
export const EMBEDDING_SOURCES = ['runtime', 'sync_service', 'import_adapter'] as const;

function checkDimensions(value: { dimensions?: unknown; vector?: unknown }, path: string, issues: Issues): void {
  if (typeof value.dimensions === 'number' && Array.isArray(value.vector) && value.vector.length !== value.dimensions) {
    issues.error(`${path}/vector`, `has ${value.vector.length} values but dimensions is ${value.dimensions}`);
  }
}

/**
 * memory-record.schema.json: the reader's `MemoryRecord` (reader-structs.ts `RECORD`; the id may be
 * any UUID version, the reference mints v5 ids) with the validator's own rules.
 */
export const MEMORY_RECORD: Rule = structFrom(RECORD, {
  check: checkRecordExtras,
  fields: {
    content: { minLength: 1 },
    memory_type: { known: MEMORY_TYPES },
    status: { known: RECORD_STATUSES },
    namespace: { minLength: 1 },
    confidence: { min: 0, max: 1 },
    source: { fields: { runtime: { minLength: 1 }, extraction_method: { known: EXTRACTION_METHODS }, identity_version: { min: 1 } } },
    entities: { fields: { type: { known: ENTITY_TYPES } } },
    embeddings: { check: checkDimensions, fields: { dimensions: { min: 1 }, source: { known: EMBEDDING_SOURCES } } },
  },
});

const warnUnknownRecordKeys = warnUnknownKeys(RECORD);

/**
 * Unknown fields warn; `raw_source_format` is an `Option<serde_json::Value>` in the reference reader:
 * any JSON value reads (ingest takes it), the schema's `"type": "object"` only warns.
 */
function checkRecordExtras(record: JsonObject, path: string, issues: Issues): void {
  warnUnknownRecordKeys(record, path, issues);
  const raw = record.raw_source_format;
  if (raw !== undefined && raw !== null && !isJsonObject(raw)) {
    issues.warn(child(path, 'raw_source_format'), 'is not an object, as the schema wants; the reference reader reads any JSON value here');
  }
}
