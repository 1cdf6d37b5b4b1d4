/**
 * The reference `alf` reader's structs (serde derive; CONTRACT §3/§4.1, the schemas in
 * ../shared/alf/schemas), written down once: for each struct, its known fields and what each holds
 * (a `Kind`, a `serde_json::Value`, a struct, a list or a map) and whether it is `required`, an
 * `Option` or a defaulted list. The rules that follow from them are derived here, never written
 * again: which keys a struct refuses twice (lib/core/duplicate-keys.ts `keyLevel`), which JSON types
 * it refuses in a layer document or a manifest (lib/core/typed-fields.ts) and in a record
 * (lib/ledger/ingest-checks.ts `wrongTypedField`), and the type part of `lineage validate`'s record,
 * manifest and layer document rules (lib/core/validate/from-structs.ts `structFrom`; validate adds only its own).
 *
 * Unknown keys and `serde_json::Value`s hold anything; enum fields (`memory_type`, `status`,
 * `principal_type`, …) any string.
 */

/** The JSON type a known scalar field must hold; `isKind` (typed-fields.ts) says what each takes. */
export type Kind = 'string' | 'uuid' | 'number' | 'u32' | 'u64' | 'time' | 'date' | 'boolean';

/** What a field holds: a scalar, anything (`value`), a struct, a list of one of these, or a map of scalars. */
export type Shape = Kind | 'value' | Struct | { readonly list: Kind | 'value' | Struct } | { readonly map: Kind };
/**
 * `required`: absent is "missing field", null refused. `optional`: an `Option`, absent or null.
 * `listed`: a list or map with `#[serde(default)]`, absent but not null.
 */
export type Need = 'required' | 'optional' | 'listed';
/** One known field of a struct. */
export type FieldRule = readonly [name: string, shape: Shape, need: Need];
export interface Struct {
  readonly fields: readonly FieldRule[];
}

export const struct = (...fields: FieldRule[]): Struct => ({ fields });
export const list = (items: Kind | 'value' | Struct) => ({ list: items });
/** Whether a field's shape is a struct (its own fields), not a scalar, list or map. */
export const isStruct = (shape: Shape): shape is Struct => typeof shape === 'object' && 'fields' in shape;

/**
 * `MemoryRecord` (alf-core memory.rs; CONTRACT §4.1, memory-record.schema.json), its fields in the
 * order ingest checks them (lib/ledger/ingest-checks.ts `wrongTypedField`: the first refused is named).
 */
export const RECORD_SOURCE = struct(
  ['runtime', 'string', 'required'], ['runtime_version', 'string', 'optional'], ['origin', 'string', 'optional'],
  ['origin_file', 'string', 'optional'], ['extraction_method', 'string', 'optional'], ['session_id', 'string', 'optional'],
  ['interaction_id', 'string', 'optional'], ['identity_version', 'u32', 'optional'],
);
export const RECORD_TEMPORAL = struct(
  ['created_at', 'time', 'required'], ['updated_at', 'time', 'optional'], ['observed_at', 'time', 'optional'], ['valid_from', 'time', 'optional'],
  ['valid_until', 'time', 'optional'], ['last_accessed_at', 'time', 'optional'], ['access_count', 'u64', 'optional'],
);
export const RECORD = struct(
  ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['content', 'string', 'required'], ['memory_type', 'string', 'required'],
  ['status', 'string', 'required'], ['namespace', 'string', 'required'],
  ['category', 'string', 'optional'], ['supersedes', 'uuid', 'optional'], ['confidence', 'number', 'optional'],
  ['source', RECORD_SOURCE, 'required'], ['temporal', RECORD_TEMPORAL, 'required'],
  ['tags', list('string'), 'listed'],
  ['entities', list(struct(['name', 'string', 'required'], ['type', 'string', 'required'], ['role', 'string', 'optional'])), 'listed'],
  ['embeddings', list(struct(
    ['model', 'string', 'required'], ['dimensions', 'u32', 'required'], ['computed_at', 'time', 'required'], ['source', 'string', 'required'],
    ['vector', list('number'), 'required'],
  )), 'listed'],
  ['related_records', list(struct(['id', 'uuid', 'required'], ['relation', 'string', 'required'])), 'listed'],
  ['raw_source_format', 'value', 'optional'],
);
/** A `memory/delta.jsonl` line: `DeltaMemoryEntry`, `operation` (any string) and the record flattened into it. */
export const DELTA_LINE = struct(['operation', 'string', 'required'], ...RECORD.fields);

/**
 * The layer documents: `Identity`, `PrincipalsDocument`, `CredentialsDocument` (alf-core identity.rs,
 * principals.rs, credentials.rs) and `AttachmentsIndex` (manifest.rs) with their structs.
 */
const CAPABILITY = struct(['name', 'string', 'required'], ['description', 'string', 'optional'], ['priority', 'u32', 'optional'],
  ['portability', 'string', 'optional'], ['host_requirements', 'string', 'optional'], ['credential_ids', list('uuid'), 'listed']);
export const IDENTITY = struct(
  ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['version', 'u32', 'required'], ['updated_at', 'time', 'required'],
  ['structured', struct(
    ['names', struct(['primary', 'string', 'required'], ['nickname', 'string', 'optional'], ['full', 'string', 'optional']), 'optional'],
    ['role', 'string', 'optional'], ['goals', list('string'), 'listed'],
    ['psychology', struct(
      ['neural_matrix', { map: 'number' }, 'listed'],
      ['personality_traits', struct(['framework', 'string', 'required'], ['scores', { map: 'number' }, 'required']), 'optional'],
      ['moral_alignment', 'string', 'optional'], ['mbti', 'string', 'optional'],
    ), 'optional'],
    ['linguistics', struct(
      ['formality_level', 'number', 'optional'], ['verbosity', 'number', 'optional'], ['humor_level', 'number', 'optional'],
      ['slang_usage', 'boolean', 'optional'], ['preferred_language', 'string', 'optional'],
      ['idiolect', struct(['catchphrases', list('string'), 'listed'], ['verbal_tics', list('string'), 'listed'], ['avoided_words', list('string'), 'listed']), 'optional'],
    ), 'optional'],
    ['capabilities', list(CAPABILITY), 'listed'],
    ['sub_agents', list(struct(
      ['agent_id', 'uuid', 'optional'], ['name', 'string', 'required'], ['capabilities', list(CAPABILITY), 'required'], ['status', 'string', 'required'],
      ['description', 'string', 'optional'], ['model_hints', struct(['primary_model', 'string', 'optional'], ['last_model', 'string', 'optional']), 'optional'],
      ['routing_hints', 'string', 'optional'], ['last_invoked_at', 'time', 'optional'], ['performance_notes', 'string', 'optional'],
    )), 'listed'],
    ['aieos_extensions', 'value', 'optional'],
  ), 'optional'],
  ['prose', struct(['soul', 'string', 'optional'], ['operating_instructions', 'string', 'optional'], ['identity_profile', 'string', 'optional'],
    ['custom_blocks', { map: 'string' }, 'listed']), 'optional'],
  ['source_format', 'string', 'optional'], ['raw_source', 'value', 'optional'],
);
export const PRINCIPALS = struct(['principals', list(struct(
  ['id', 'uuid', 'required'], ['principal_type', 'string', 'required'], ['agent_id', 'uuid', 'optional'],
  ['profile', struct(
    ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['principal_id', 'uuid', 'required'], ['version', 'u32', 'required'],
    ['updated_at', 'time', 'required'],
    ['structured', struct(
      ['name', 'string', 'optional'], ['principal_type', 'string', 'optional'], ['timezone', 'string', 'optional'], ['locale', 'string', 'optional'],
      ['communication_preferences', struct(['tone', 'string', 'optional'], ['response_length', 'string', 'optional'], ['formatting', 'string', 'optional']), 'optional'],
      ['work_context', struct(['role', 'string', 'optional'], ['company', 'string', 'optional'], ['projects', list('string'), 'listed']), 'optional'],
      ['relationships', list('value'), 'listed'], ['custom_fields', 'value', 'optional'],
    ), 'optional'],
    ['prose', struct(['user_profile', 'string', 'optional']), 'optional'],
    ['source_format', 'string', 'optional'], ['raw_source', 'value', 'optional'],
  ), 'required'],
)), 'required']);
export const CREDENTIALS = struct(['credentials', list(struct(
  ['id', 'uuid', 'required'], ['agent_id', 'uuid', 'required'], ['service', 'string', 'required'], ['credential_type', 'string', 'required'],
  ['encrypted_payload', 'string', 'required'],
  ['encryption', struct(['algorithm', 'string', 'required'], ['nonce', 'string', 'required'], ['kdf', 'string', 'optional'],
    ['kdf_params', struct(['memory_cost', 'u64', 'optional'], ['time_cost', 'u32', 'optional'], ['parallelism', 'u32', 'optional']), 'optional']), 'required'],
  ['created_at', 'time', 'required'], ['label', 'string', 'optional'], ['capabilities_granted', list('string'), 'listed'],
  ['updated_at', 'time', 'optional'], ['last_rotated_at', 'time', 'optional'], ['expires_at', 'time', 'optional'], ['tags', list('string'), 'listed'],
)), 'required']);
export const ATTACHMENTS = struct(['artifact_size_threshold', 'u64', 'optional'], ['attachments', list(struct(
  ['id', 'uuid', 'required'], ['filename', 'string', 'required'], ['media_type', 'string', 'required'], ['size_bytes', 'u64', 'required'],
  ['hash', struct(['algorithm', 'string', 'required'], ['value', 'string', 'required']), 'required'], ['source_path', 'string', 'required'],
  ['archive_path', 'string', 'optional'], ['remote_ref', 'string', 'optional'], ['referenced_by', list('uuid'), 'listed'],
)), 'required']);
/** Each layer document's struct, by layer (`identity.json` … `attachments.json`). */
export const LAYER_STRUCTS = { identity: IDENTITY, principals: PRINCIPALS, credentials: CREDENTIALS, attachments: ATTACHMENTS } as const;

/**
 * The manifests' structs (CONTRACT §3.1/§3.2, manifest.schema.json, delta-manifest.schema.json): a
 * field the schema requires is required, the others are `Option`s (absent or null; a layer's entry
 * `layers.identity: null` is not listed). A partition's `from`/`to` are dates (`NaiveDate` there; a
 * full-date YYYY-MM-DD here); a layer's and an attachment's counts are `u32`s. `changes.raw` is the
 * reference writer's (CONTRACT §3.2), not the schema's.
 */
const COUNTED_LAYER = struct(['count', 'u32', 'required'], ['file', 'string', 'required']);
export const SNAPSHOT_MANIFEST = struct(
  ['alf_version', 'string', 'required'], ['created_at', 'time', 'required'],
  ['agent', struct(['id', 'uuid', 'required'], ['name', 'string', 'required'], ['source_runtime', 'string', 'required'],
    ['source_runtime_version', 'string', 'optional']), 'required'],
  ['runtime_hints', struct(['primary_model', 'string', 'required'], ['last_model', 'string', 'required'], ['provider', 'string', 'optional'],
    ['context_window', 'u64', 'optional'], ['notes', 'string', 'optional']), 'optional'],
  ['sync', struct(['last_sequence', 'u64', 'required'], ['last_sync_at', 'time', 'optional']), 'optional'],
  ['layers', struct(
    ['identity', struct(['version', 'u32', 'required'], ['file', 'string', 'required']), 'optional'],
    ['principals', COUNTED_LAYER, 'optional'], ['credentials', COUNTED_LAYER, 'optional'],
    ['memory', struct(
      ['record_count', 'u64', 'required'], ['index_file', 'string', 'required'],
      ['partitions', list(struct(['file', 'string', 'required'], ['from', 'date', 'required'], ['to', 'date', 'optional'],
        ['record_count', 'u64', 'required'], ['sealed', 'boolean', 'required'])), 'required'],
      ['has_embeddings', 'boolean', 'optional'], ['has_raw_source', 'boolean', 'optional'],
    ), 'optional'],
    ['attachments', struct(['count', 'u32', 'required'], ['file', 'string', 'required'], ['included_count', 'u32', 'optional'],
      ['included_size_bytes', 'u64', 'optional'], ['referenced_count', 'u32', 'optional'], ['referenced_size_bytes', 'u64', 'optional']), 'optional'],
  ), 'required'],
  ['raw_sources', list('string'), 'listed'], ['checksum', 'string', 'optional'],
);
export const DELTA_MANIFEST = struct(
  ['alf_version', 'string', 'required'], ['created_at', 'time', 'required'],
  ['agent', struct(['id', 'uuid', 'required'], ['source_runtime', 'string', 'optional']), 'required'],
  ['sync', struct(['base_sequence', 'u64', 'required'], ['new_sequence', 'u64', 'required'], ['base_timestamp', 'time', 'optional'],
    ['new_timestamp', 'time', 'optional']), 'required'],
  ['changes', struct(
    ['identity', struct(['file', 'string', 'optional'], ['new_version', 'u32', 'optional']), 'optional'],
    ['principals', struct(['file', 'string', 'optional'], ['changed_ids', list('uuid'), 'listed']), 'optional'],
    ['credentials', struct(['file', 'string', 'optional']), 'optional'],
    ['memory', struct(['file', 'string', 'optional'], ['record_count', 'u64', 'optional']), 'optional'],
    ['raw', struct(['changed', list('string'), 'listed'], ['deleted', list('string'), 'listed']), 'optional'],
  ), 'required'],
);
