import { checkIdentity, checkPartitionOrder, checkPartitionRange, MANIFEST_KEYS, warnUnknownKeys, checkPrincipal } from './reference-rules';
import { any, arr, bool, int, obj, str, type Rule } from './rules';

const VERSION = /^\d+\.\d+\.\d+$/;
/**
 * An `Option<…>` struct field of the reference reader's manifests: null reads as absent (a layer
 * or change not listed), as ingest takes it (lib/core/typed-fields.ts wrongTypedManifestField).
 */
const NOT_LISTED = { nullable: true } as const;
/** Any other `Option` field of those structs: null reads as absent (rules.ts `Rule`). */
const OPTION = NOT_LISTED;
/** A `u32` field's largest (a layer's `count` and `version`, `new_version`): that reader refuses more. */
const U32_MAX = 4_294_967_295;
const dateTime = (required = false) => str({ required, format: 'date-time', ...(required ? {} : OPTION) });

/** manifest.schema.json#/$defs/MemoryPartition */
export const PARTITION: Rule = obj({
  file: str({ required: true }),
  from: str({ required: true, format: 'date' }),
  to: str({ nullable: true, format: 'date' }),
  record_count: int({ required: true, min: 0 }),
  sealed: bool({ required: true }),
}, { check: checkPartitionRange });

const LAYER_INVENTORY = obj({
  identity: obj({ version: int({ required: true, min: 1, max: U32_MAX }), file: str({ required: true }) }, NOT_LISTED),
  principals: obj({ count: int({ required: true, min: 0, max: U32_MAX }), file: str({ required: true }) }, NOT_LISTED),
  credentials: obj({ count: int({ required: true, min: 0, max: U32_MAX }), file: str({ required: true }) }, NOT_LISTED),
  memory: obj({
    record_count: int({ required: true, min: 0 }),
    index_file: str({ required: true }),
    has_embeddings: bool(OPTION),
    has_raw_source: bool(OPTION),
    partitions: arr(PARTITION, { required: true }),
  }, { check: checkPartitionOrder, nullable: true }),
  attachments: obj({
    count: int({ required: true, min: 0, max: U32_MAX }),
    included_count: int({ min: 0, max: U32_MAX, ...OPTION }),
    included_size_bytes: int({ min: 0, ...OPTION }),
    referenced_count: int({ min: 0, max: U32_MAX, ...OPTION }),
    referenced_size_bytes: int({ min: 0, ...OPTION }),
    file: str({ required: true }),
  }, NOT_LISTED),
}, { required: true });

/** manifest.schema.json */
export const SNAPSHOT_MANIFEST: Rule = obj({
  alf_version: str({ required: true, pattern: VERSION }),
  created_at: dateTime(true),
  agent: obj({
    id: str({ required: true, format: 'uuid' }),
    name: str({ required: true, minLength: 1 }),
    source_runtime: str({ required: true, minLength: 1 }),
    source_runtime_version: str(OPTION),
  }, { required: true }),
  runtime_hints: obj({
    primary_model: str({ required: true }),
    last_model: str({ required: true }),
    provider: str(OPTION),
    context_window: int({ min: 1, ...OPTION }),
    notes: str({ nullable: true }),
  }, NOT_LISTED),
  sync: obj({ last_sequence: int({ required: true, min: 0 }), last_sync_at: dateTime() }, NOT_LISTED),
  layers: LAYER_INVENTORY,
  raw_sources: arr(str()),
  checksum: str({ pattern: /^[^:]+:[0-9a-fA-F]+$/, ...OPTION }),
}, { check: warnUnknownKeys(MANIFEST_KEYS) });

/** delta-manifest.schema.json */
export const DELTA_MANIFEST: Rule = obj({
  alf_version: str({ required: true, pattern: VERSION }),
  created_at: dateTime(true),
  agent: obj({ id: str({ required: true, format: 'uuid' }), source_runtime: str(OPTION) }, { required: true }),
  sync: obj({
    base_sequence: int({ required: true, min: 0 }),
    new_sequence: int({ required: true, min: 0 }),
    base_timestamp: dateTime(),
    new_timestamp: dateTime(),
  }, { required: true }),
  changes: obj({
    identity: obj({ file: str(OPTION), new_version: int({ min: 1, max: U32_MAX, ...OPTION }) }, NOT_LISTED),
    principals: obj({ file: str(OPTION), changed_ids: arr(str({ format: 'uuid' })) }, NOT_LISTED),
    credentials: obj({ file: str(OPTION) }, NOT_LISTED),
    memory: obj({ file: str(OPTION), record_count: int({ min: 0, ...OPTION }) }, NOT_LISTED),
    raw: obj({ changed: arr(str()), deleted: arr(str()) }, NOT_LISTED),
  }, { required: true }),
});

/** The reference's known `principal_type`s and `credential_type`s (principals.rs, credentials.rs): any other warns. */
const PRINCIPAL_TYPES = ['human', 'agent'] as const;
const CREDENTIAL_TYPES = ['api_key', 'oauth_token', 'webhook_secret', 'session_token', 'ssh_key', 'certificate', 'custom'] as const;

const requiredKeys = (keys: string[]): Record<string, Rule> => Object.fromEntries(keys.map((key) => [key, any({ required: true })]));

/** Top-level shape of each layer document (identity/principals/credentials/attachments schemas). */
export const LAYER_DOCS: Record<string, Rule> = {
  'identity.json': obj({
    id: str({ required: true, format: 'uuid' }),
    agent_id: str({ required: true, format: 'uuid' }),
    version: int({ required: true, min: 1 }),
    updated_at: dateTime(true),
  }, { check: checkIdentity }),
  'principals.json': obj({
    principals: arr(obj({
      ...requiredKeys(['profile']), id: str({ required: true, format: 'uuid' }), principal_type: str({ required: true, known: PRINCIPAL_TYPES }),
    }, { check: checkPrincipal }), { required: true }),
  }),
  'credentials.json': obj({
    credentials: arr(obj({
      // validation.rs validate_credentials: service, payload and algorithm not empty; an unknown type warns.
      service: str({ required: true, minLength: 1 }),
      credential_type: str({ required: true, known: CREDENTIAL_TYPES }),
      encrypted_payload: str({ required: true, minLength: 1 }),
      encryption: obj({ algorithm: str({ required: true, minLength: 1 }) }, { required: true }),
      id: str({ required: true, format: 'uuid' }),
      agent_id: str({ required: true, format: 'uuid' }),
      created_at: dateTime(true),
    }), { required: true }),
  }),
  'attachments.json': obj({
    artifact_size_threshold: int({ min: 0 }),
    attachments: arr(obj({
      ...requiredKeys(['filename', 'media_type', 'hash', 'source_path', 'archive_path', 'remote_ref']),
      id: str({ required: true, format: 'uuid' }),
      size_bytes: int({ required: true, min: 0 }),
    }), { required: true }),
  }),
};
