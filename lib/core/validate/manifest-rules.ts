import type { LayerName } from '../archive/types';
import {
  ATTACHMENTS, CREDENTIALS, DELTA_MANIFEST as DELTA_STRUCT, IDENTITY, PRINCIPALS, SNAPSHOT_MANIFEST as SNAPSHOT_STRUCT,
} from '../reader-structs';
import { checkCredential, checkIdentity, checkPartitionOrder, checkPartitionRange, warnUnknownKeys, checkPrincipal, warnRemoteRef } from './reference-rules';
import { structFrom } from './from-structs';
import type { Rule } from './rules';

const VERSION = /^\d+\.\d+\.\d+$/;

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
/**
 * identity.schema.json's enums, a capability's `portability` and a sub-agent's `status`: the reader
 * reads any string (reader-structs.ts), so any other value warns, as a record's enums do.
 */
const PORTABILITIES = ['intrinsic', 'host_dependent'] as const;
const SUB_AGENT_STATUSES = ['active', 'inactive', 'unavailable'] as const;
/** identity.schema.json's limits: a capability's `priority` at least 1 (1 = highest); a score 0.0–1.0. */
const CAPABILITIES = { fields: { portability: { known: PORTABILITIES }, priority: { min: 1 } } };
const UNIT = { min: 0, max: 1 };
/** credentials.schema.json: each of `kdf_params`' costs at least 1. */
const AT_LEAST_ONE = { min: 1 };

/**
 * The layer documents (identity/principals/credentials/attachments schemas): the reader's structs
 * (reader-structs.ts `LAYER_STRUCTS`; an attachment's `archive_path` and `remote_ref`, which the
 * schema lists as required-but-nullable, are `Option`s there, as `artifact_size_threshold` is) with
 * the validator's own rules (validation.rs): an identity version of at least 1 and its names
 * (`checkIdentity`), a principal's profile version and back-reference (`checkPrincipal`), a
 * credential's service, payload and algorithm not empty; an unknown principal or credential type, a
 * capability's portability or a sub-agent's status warns. The schemas' limits are errors, as a
 * record's (`confidence` 0..1, `identity_version` and `dimensions` at least 1) are: a `neural_matrix`
 * value and the linguistics levels 0..1, a capability's priority and each `kdf_params` cost at least
 * 1 (the reader takes any number, any u32 or u64 there). A `remote_ref` that is no URI only warns
 * (`warnRemoteRef`): the schema's `format` is an annotation, the reader reads any string.
 */
export const LAYER_DOCS: Record<LayerName, Rule> = {
  identity: structFrom(IDENTITY, {
    check: checkIdentity,
    fields: {
      version: { min: 1 },
      structured: {
        fields: {
          psychology: { fields: { neural_matrix: UNIT } },
          linguistics: { fields: { formality_level: UNIT, verbosity: UNIT, humor_level: UNIT } },
          capabilities: CAPABILITIES, sub_agents: { fields: { status: { known: SUB_AGENT_STATUSES }, capabilities: CAPABILITIES } },
        },
      },
    },
  }),
  principals: structFrom(PRINCIPALS, {
    fields: { principals: { check: checkPrincipal, fields: { principal_type: { known: PRINCIPAL_TYPES } } } },
  }),
  credentials: structFrom(CREDENTIALS, {
    fields: {
      credentials: {
        check: checkCredential,
        fields: {
          service: { minLength: 1 }, credential_type: { known: CREDENTIAL_TYPES }, encrypted_payload: { minLength: 1 },
          encryption: {
            fields: { algorithm: { minLength: 1 }, kdf_params: { fields: { memory_cost: AT_LEAST_ONE, time_cost: AT_LEAST_ONE, parallelism: AT_LEAST_ONE } } },
          },
        },
      },
    },
  }),
  attachments: structFrom(ATTACHMENTS, { fields: { attachments: { check: warnRemoteRef } } }),
};
