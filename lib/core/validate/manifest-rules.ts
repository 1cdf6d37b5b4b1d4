import { DELTA_MANIFEST as DELTA_STRUCT, SNAPSHOT_MANIFEST as SNAPSHOT_STRUCT } from '../reader-structs';
import { checkIdentity, checkPartitionOrder, checkPartitionRange, warnUnknownKeys, checkPrincipal } from './reference-rules';
import { structFrom } from './from-structs';
import { any, arr, int, obj, str, type Rule } from './rules';

const VERSION = /^\d+\.\d+\.\d+$/;
const dateTime = (required = false) => str({ required, format: 'date-time' });

/**
 * manifest.schema.json: the reader's snapshot manifest (reader-structs.ts; a layer or a hint not
 * listed is null or absent) with the validator's own rules.
 */
export const SNAPSHOT_MANIFEST: Rule = structFrom(SNAPSHOT_STRUCT, {
  check: warnUnknownKeys(SNAPSHOT_STRUCT),
  fields: {
    alf_version: { pattern: VERSION },
    agent: { fields: { name: { minLength: 1 }, source_runtime: { minLength: 1 } } },
    runtime_hints: { fields: { context_window: { min: 1 } } },
    layers: {
      fields: {
        identity: { fields: { version: { min: 1 } } },
        memory: { check: checkPartitionOrder, fields: { partitions: { check: checkPartitionRange } } },
      },
    },
    checksum: { pattern: /^[^:]+:[0-9a-fA-F]+$/ },
  },
});

/** delta-manifest.schema.json: the reader's delta manifest with the validator's own rules. */
export const DELTA_MANIFEST: Rule = structFrom(DELTA_STRUCT, {
  fields: {
    alf_version: { pattern: VERSION },
    changes: { fields: { identity: { fields: { new_version: { min: 1 } } } } },
  },
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
    // An `Option<u64>` there (reader-structs.ts ATTACHMENTS): null is read as absent.
    artifact_size_threshold: int({ min: 0, nullable: true }),
    attachments: arr(obj({
      // `archive_path` (Tier 2, included) and `remote_ref` (Tier 3) are `Option`s in the reader: absent or null. The schema
      // lists them as required-but-nullable; the reference `alf validate` reads with that reader first.
      ...requiredKeys(['filename', 'media_type', 'hash', 'source_path']),
      id: str({ required: true, format: 'uuid' }),
      size_bytes: int({ required: true, min: 0 }),
    }), { required: true }),
  }),
};
