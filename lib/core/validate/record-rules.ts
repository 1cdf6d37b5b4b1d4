import { MEMORY_TYPES, RECORD_STATUSES } from '../record';
import { RECORD_KEYS, warnUnknownKeys } from './reference-rules';
import { isJsonObject, type JsonObject } from '../json';
import { any, arr, child, int, num, obj, str, type Issues, type Rule } from './rules';

export const EXTRACTION_METHODS = ['agent_written', 'llm_extracted', 'user_authored', 'migrated'] as const;
export const ENTITY_TYPES = ['person', 'organization', 'project', 'location', 'tool', 'service', 'other'] as const;
export const EMBEDDING_SOURCES = ['runtime', 'sync_service', 'import_adapter'] as const;

const dateTime = (required = false) => str({ required, format: 'date-time' });
const nullableDateTime = () => str({ nullable: true, format: 'date-time' });
/** An `Option` field of the reference reader's record (memory.rs): null reads as absent (see rules.ts `Rule`). */
const OPTION = { nullable: true } as const;
const U32_MAX = 4_294_967_295;

const SOURCE = obj({
  runtime: str({ required: true, minLength: 1 }),
  runtime_version: str(OPTION),
  origin: str(OPTION),
  origin_file: str(OPTION),
  extraction_method: str({ known: EXTRACTION_METHODS, ...OPTION }),
  session_id: str(OPTION),
  interaction_id: str(OPTION),
  identity_version: int({ min: 1, max: U32_MAX, ...OPTION }),
}, { required: true });

const TEMPORAL = obj({
  created_at: dateTime(true),
  updated_at: nullableDateTime(),
  observed_at: nullableDateTime(),
  valid_from: nullableDateTime(),
  valid_until: nullableDateTime(),
  last_accessed_at: nullableDateTime(),
  access_count: int({ min: 0, ...OPTION }),
}, { required: true });

const ENTITY = obj({ name: str({ required: true }), type: str({ required: true, known: ENTITY_TYPES }), role: str(OPTION) });

const EMBEDDING = obj(
  {
    model: str({ required: true }),
    dimensions: int({ required: true, min: 1, max: U32_MAX }),
    vector: arr(num(), { required: true }),
    computed_at: dateTime(true),
    source: str({ required: true, known: EMBEDDING_SOURCES }),
  },
  { check: checkDimensions },
);

function checkDimensions(value: { dimensions?: unknown; vector?: unknown }, path: string, issues: Issues): void {
  if (typeof value.dimensions === 'number' && Array.isArray(value.vector) && value.vector.length !== value.dimensions) {
    issues.error(`${path}/vector`, `has ${value.vector.length} values but dimensions is ${value.dimensions}`);
  }
}

const RELATED = obj({ id: str({ required: true, format: 'uuid' }), relation: str({ required: true }) });

/** memory-record.schema.json; the id may be any UUID version (the reference mints v5 ids). */
export const MEMORY_RECORD: Rule = obj({
  id: str({ required: true, format: 'uuid' }),
  agent_id: str({ required: true, format: 'uuid' }),
  content: str({ required: true, minLength: 1 }),
  memory_type: str({ required: true, known: MEMORY_TYPES }),
  category: str(OPTION),
  source: SOURCE,
  temporal: TEMPORAL,
  status: str({ required: true, known: RECORD_STATUSES }),
  supersedes: str({ format: 'uuid', ...OPTION }),
  confidence: num({ min: 0, max: 1, ...OPTION }),
  entities: arr(ENTITY),
  tags: arr(str()),
  namespace: str({ required: true, minLength: 1 }),
  embeddings: arr(EMBEDDING),
  related_records: arr(RELATED),
  // An `Option<serde_json::Value>` in the reference reader: any JSON value reads (ingest takes it);
  // the schema's `"type": "object"` only warns.
  raw_source_format: any(),
}, { check: checkRecordExtras });

const warnUnknownRecordKeys = warnUnknownKeys(RECORD_KEYS);

function checkRecordExtras(record: JsonObject, path: string, issues: Issues): void {
  warnUnknownRecordKeys(record, path, issues);
  const raw = record.raw_source_format;
  if (raw !== undefined && raw !== null && !isJsonObject(raw)) {
    issues.warn(child(path, 'raw_source_format'), 'is not an object, as the schema wants; the reference reader reads any JSON value here');
  }
}

