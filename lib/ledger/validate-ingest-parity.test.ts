/**
 * `lineage validate` and ingest against the reference, field by field. The reference `alf validate`
 * reads the archive with the reference reader (serde: alf-core memory.rs, manifest.rs) and checks the
 * structs it got (validation.rs): so what that reader refuses is invalid, and what it reads is valid
 * unless a validator rule says otherwise (an empty `content`, `confidence` outside 0..1, an
 * `alf_version` that is not MAJOR.MINOR.PATCH …). An `Option` field reads null as absent although the
 * schema says `"type": "string"`; a list with a default (`tags`, `raw_sources`) does not; a `Uuid`
 * field takes any form the uuid crate parses; a `u32` field nothing past 4294967295; a partition's
 * `from`/`to` are dates. Ingest refuses exactly what that reader refuses, and besides, by its own
 * rules (lib/ledger/ingest-checks.ts), what it could not serve: a record id not in the lowercase
 * hyphenated form (records are keyed by the id's text), a time that is not RFC 3339 (the reference's chrono reads
 * a relaxed form too: our readers, the dashboard and restores read RFC 3339 only, and validate calls
 * it an error as well). Validator rules are not ingest's: it takes what the reference reader reads.
 *
 * Each row: a field set to a value in a record (a snapshot's, or a delta's line), in a manifest or in
 * a layer document (`identity.json`, `principals.json`, `credentials.json`, `attachments.json`),
 * `lineage validate`'s verdict (`warns`: valid, with a warning at that field) and ingest's, through
 * the embedded ledger's real ingest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { AGENT_ID, makeRecord, setPath } from '@/lib/core/archive/testing/fixtures';
import { validateArchive } from '@/lib/core/validate';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { getAgent, isLedgerError, registerAgent, type Ledger } from './index';

type Where = 'record' | 'manifest' | 'attachments' | 'identity' | 'principals' | 'credentials';
interface ParityCase {
  how: 'snapshot' | 'delta';
  where: Where;
  /** A dotted path (`[n]` for an array item); `undefined` deletes the field. */
  field: string;
  value: unknown;
  validate: 'valid' | 'warns' | 'invalid';
  ingest: 'taken' | 'refused';
}

const URN = 'urn:uuid:0190a000-0000-7000-8000-0000000000aa';
const BRACED = '{0190A000-0000-7000-8000-0000000000AA}';
const SIMPLE = '0190a00000007000800000000000aaaa';
const TIME = '2026-01-15T10:00:00Z';
/** Ids of the layer documents' items (hyphenated in each document as written). */
const PRINCIPAL = '0190a000-0000-7000-8000-0000000000c1';
const CREDENTIAL = '0190a000-0000-7000-8000-0000000000c2';
const SUB_AGENT = '0190a000-0000-7000-8000-0000000000c3';
const OTHER = '0190a000-0000-7000-8000-0000000000ff';
/** A credential's nonce: 24 bytes in base64, as xchacha20-poly1305 takes; and 12, as aes-256-gcm does. */
const NONCE_24 = Buffer.alloc(24, 7).toString('base64');
const NONCE_12 = Buffer.alloc(12, 7).toString('base64');

const row = (how: ParityCase['how'], where: Where, field: string, value: unknown, validate: ParityCase['validate'], ingest: ParityCase['ingest']): ParityCase =>
  ({ how, where, field, value, validate, ingest });

/** Record fields, each as a snapshot's record and as a delta's line. */
const RECORD_ROWS: [string, unknown, ParityCase['validate'], ParityCase['ingest']][] = [
  // An `Option` scalar takes null: the reference reader reads it as absent.
  ['category', null, 'valid', 'taken'],
  ['supersedes', null, 'valid', 'taken'],
  ['confidence', null, 'valid', 'taken'],
  ['source.runtime_version', null, 'valid', 'taken'],
  ['source.origin', null, 'valid', 'taken'],
  ['source.origin_file', null, 'valid', 'taken'],
  ['source.extraction_method', null, 'valid', 'taken'],
  ['source.session_id', null, 'valid', 'taken'],
  ['source.interaction_id', null, 'valid', 'taken'],
  ['source.identity_version', null, 'valid', 'taken'],
  ['temporal.updated_at', null, 'valid', 'taken'],
  ['temporal.valid_until', null, 'valid', 'taken'],
  ['temporal.access_count', null, 'valid', 'taken'],
  // A `u64` there: past 2^64 it is refused (JSON.parse reads 1e20 as a number; the reader does not).
  ['temporal.access_count', 1e20, 'invalid', 'refused'],
  ['entities', [{ name: 'Jane', type: 'person', role: null }], 'valid', 'taken'],
  ['raw_source_format', null, 'valid', 'taken'],
  // An `Option<Value>`: any JSON value reads; the schema's object only warns.
  ['raw_source_format', 'a line of text', 'warns', 'taken'],
  // A list with a default, and a required field, do not take null.
  ['tags', null, 'invalid', 'refused'],
  ['entities', null, 'invalid', 'refused'],
  ['source.runtime', null, 'invalid', 'refused'],
  ['temporal.created_at', null, 'invalid', 'refused'],
  ['content', null, 'invalid', 'refused'],
  // A `Uuid` takes the uuid crate's forms.
  ['supersedes', URN, 'valid', 'taken'],
  ['supersedes', BRACED, 'valid', 'taken'],
  ['agent_id', SIMPLE, 'valid', 'taken'],
  ['related_records', [{ id: URN, relation: 'related_to' }], 'valid', 'taken'],
  ['supersedes', 'not-a-uuid', 'invalid', 'refused'],
  ['supersedes', '0190a000-0000-7000-8000-0000000000a', 'invalid', 'refused'],
  // The record's own id: read by the reference, keyed by its text in a ledger, which refuses any but the
  // lowercase hyphenated form (CONTRACT §4.2): one UUID in two forms would be two records there.
  ['id', URN, 'warns', 'refused'],
  ['id', SIMPLE, 'warns', 'refused'],
  ['id', BRACED, 'warns', 'refused'],
  ['id', '0190A000-0000-7000-8000-0000000000AA', 'warns', 'refused'],
  ['id', '0190a000-0000-7000-8000-0000000000Aa', 'warns', 'refused'],
  // Times: RFC 3339 with any offset, `T`, `t` or a space.
  ['temporal.updated_at', '2026-01-15 10:00:00.123456789+01:00', 'valid', 'taken'],
  ['temporal.observed_at', '2026-01-15t10:00:00z', 'valid', 'taken'],
  ['temporal.updated_at', '2026-01-15T10:00:00', 'invalid', 'refused'],
  ['temporal.updated_at', '2026-02-30T10:00:00Z', 'invalid', 'refused'],
  ['temporal.updated_at', 'yesterday', 'invalid', 'refused'],
  // chrono's relaxed RFC 3339 (unpadded, an offset without its colon): read by the reference, not RFC 3339.
  ['temporal.updated_at', '2026-1-15T10:00:00Z', 'invalid', 'refused'],
  ['temporal.updated_at', '2026-01-15T10:00:00+0100', 'invalid', 'refused'],
  // `u32`s.
  ['source.identity_version', 4294967295, 'valid', 'taken'],
  ['source.identity_version', 4294967296, 'invalid', 'refused'],
  // Validator rules: the reference validate errors, its reader reads the record, and so ingest takes it.
  ['confidence', 1.5, 'invalid', 'taken'],
  ['content', '', 'invalid', 'taken'],
  ['namespace', '', 'invalid', 'taken'],
  ['memory_type', 'novel', 'warns', 'taken'],
];

const MANIFEST_ROWS: ParityCase[] = [
  row('snapshot', 'manifest', 'agent.source_runtime_version', null, 'valid', 'taken'),
  row('snapshot', 'manifest', 'runtime_hints', { primary_model: 'm', last_model: 'm', provider: null, context_window: null, notes: null }, 'valid', 'taken'),
  row('snapshot', 'manifest', 'sync', { last_sequence: 0, last_sync_at: null }, 'valid', 'taken'),
  row('snapshot', 'manifest', 'layers.memory.has_embeddings', null, 'valid', 'taken'),
  row('snapshot', 'manifest', 'layers.memory.has_raw_source', null, 'valid', 'taken'),
  row('snapshot', 'manifest', 'layers.memory.partitions[0].to', null, 'valid', 'taken'),
  row('snapshot', 'manifest', 'checksum', null, 'valid', 'taken'),
  row('snapshot', 'manifest', 'raw_sources', null, 'invalid', 'refused'),
  // The manifest names its agent: read by the reference in any uuid crate form, compared with the agent's id as text here (agent_mismatch).
  row('snapshot', 'manifest', 'agent.id', `urn:uuid:${AGENT_ID}`, 'warns', 'refused'),
  row('delta', 'manifest', 'agent.id', `{${AGENT_ID.toUpperCase()}}`, 'warns', 'refused'),
  row('snapshot', 'manifest', 'agent.source_runtime', null, 'invalid', 'refused'),
  // A partition's `from`/`to` are `NaiveDate`s there.
  row('snapshot', 'manifest', 'layers.memory.partitions[0].from', 'yesterday', 'invalid', 'refused'),
  row('snapshot', 'manifest', 'layers.memory.partitions[0].to', '2026-13-01', 'invalid', 'refused'),
  // A layer's count is a `u32` there.
  row('snapshot', 'manifest', 'layers.attachments', { count: 4294967296, file: 'attachments.json' }, 'invalid', 'refused'),
  // Validator rules only.
  row('snapshot', 'manifest', 'alf_version', 'one', 'invalid', 'taken'),
  row('snapshot', 'manifest', 'agent.name', '', 'invalid', 'taken'),
  row('delta', 'manifest', 'agent.source_runtime', null, 'valid', 'taken'),
  row('delta', 'manifest', 'sync.base_timestamp', null, 'valid', 'taken'),
  row('delta', 'manifest', 'sync.new_timestamp', null, 'valid', 'taken'),
  row('delta', 'manifest', 'changes.memory.record_count', null, 'valid', 'taken'),
  row('delta', 'manifest', 'changes.memory.file', null, 'valid', 'taken'),
  row('delta', 'manifest', 'changes.identity', { new_version: null }, 'valid', 'taken'),
  row('delta', 'manifest', 'changes.identity', { new_version: 4294967296 }, 'invalid', 'refused'),
  row('delta', 'manifest', 'sync.base_timestamp', '2026-05-02 00:00:00+0000', 'invalid', 'refused'),
  row('delta', 'manifest', 'changes.principals', { changed_ids: [URN] }, 'valid', 'taken'),
  row('delta', 'manifest', 'changes.principals', { changed_ids: null }, 'invalid', 'refused'),
];

/** `attachments.json` (a snapshot listing it): `AttachmentsIndex` and its items' `Option`s. */
const ATTACHMENT_ROWS: ParityCase[] = [
  row('snapshot', 'attachments', 'artifact_size_threshold', null, 'valid', 'taken'),
  row('snapshot', 'attachments', 'attachments[0].archive_path', undefined, 'valid', 'taken'),
  row('snapshot', 'attachments', 'attachments[0].remote_ref', undefined, 'valid', 'taken'),
  row('snapshot', 'attachments', 'attachments[0].remote_ref', null, 'valid', 'taken'),
  row('snapshot', 'attachments', 'attachments[0].source_path', undefined, 'invalid', 'refused'),
  row('snapshot', 'attachments', 'artifact_size_threshold', -1, 'invalid', 'refused'),
  // remote_ref's format is a URI: an annotation the reader does not check, so a warning.
  row('snapshot', 'attachments', 'attachments[0].remote_ref', 'notes.txt', 'warns', 'taken'),
  row('snapshot', 'attachments', 'attachments[0].remote_ref', 'https://artifacts.example/a.txt', 'valid', 'taken'),
];

/**
 * `identity.json`, `principals.json` and `credentials.json` (`Identity`, `PrincipalsDocument`,
 * `CredentialsDocument` and their structs), each as a snapshot's layer and as a delta's. The validator's own rules
 * (validation.rs validate_identity, validate_principals, validate_credentials) make the archive
 * invalid while the reader, and so ingest, takes it; an unknown enum value only warns (the schemas:
 * validators MUST NOT reject it).
 */
type LayerRow = [where: 'identity' | 'principals' | 'credentials', field: string, value: unknown, validate: ParityCase['validate'], ingest: ParityCase['ingest']];
const LAYER_ROWS: LayerRow[] = [
  // identity.json: a missing required field, a wrong type, null where no `Option` is.
  ['identity', 'id', undefined, 'invalid', 'refused'],
  ['identity', 'updated_at', undefined, 'invalid', 'refused'],
  ['identity', 'structured.names.primary', undefined, 'invalid', 'refused'],
  ['identity', 'version', '2', 'invalid', 'refused'],
  ['identity', 'updated_at', '2026-01-15T10:00:00', 'invalid', 'refused'],
  ['identity', 'structured.goals', null, 'invalid', 'refused'],
  ['identity', 'structured.sub_agents[0].capabilities', null, 'invalid', 'refused'],
  // `Option`s take null.
  ['identity', 'structured', null, 'valid', 'taken'],
  ['identity', 'structured.names.nickname', null, 'valid', 'taken'],
  ['identity', 'structured.capabilities[0].priority', null, 'valid', 'taken'],
  ['identity', 'structured.sub_agents[0].agent_id', null, 'valid', 'taken'],
  ['identity', 'source_format', null, 'valid', 'taken'],
  // `u32`s: the version and a capability's priority.
  ['identity', 'version', 4294967295, 'valid', 'taken'],
  ['identity', 'version', 4294967296, 'invalid', 'refused'],
  ['identity', 'structured.capabilities[0].priority', 4294967296, 'invalid', 'refused'],
  // `Uuid`s, in each form the uuid crate parses; the identity's agent_id is compared with the manifest's agent.id as a UUID.
  ['identity', 'id', URN, 'valid', 'taken'],
  ['identity', 'id', BRACED, 'valid', 'taken'],
  ['identity', 'id', SIMPLE, 'valid', 'taken'],
  ['identity', 'agent_id', `urn:uuid:${AGENT_ID}`, 'valid', 'taken'],
  ['identity', 'agent_id', `{${AGENT_ID.toUpperCase()}}`, 'valid', 'taken'],
  ['identity', 'agent_id', AGENT_ID.replace(/-/g, ''), 'valid', 'taken'],
  ['identity', 'structured.sub_agents[0].agent_id', URN, 'valid', 'taken'],
  ['identity', 'structured.capabilities[0].credential_ids', [BRACED, SIMPLE], 'valid', 'taken'],
  ['identity', 'agent_id', 'atlas', 'invalid', 'refused'],
  ['identity', 'structured.capabilities[0].credential_ids', ['key-1'], 'invalid', 'refused'],
  // Validator rules: another agent's identity (a snapshot's against manifest.json's agent.id, as the reference validate; a
  // delta's against delta-manifest.json's: it replaces the snapshot's when applied), a version 0, an empty name.
  ['identity', 'agent_id', OTHER, 'invalid', 'taken'],
  ['identity', 'version', 0, 'invalid', 'taken'],
  ['identity', 'structured.names.primary', '', 'invalid', 'taken'],
  ['identity', 'structured.capabilities[0].name', '', 'invalid', 'taken'],
  ['identity', 'structured.sub_agents[0].name', '', 'invalid', 'taken'],
  // Enums the schema lists (`portability`, a sub-agent's `status`): the reader reads any string.
  ['identity', 'structured.capabilities[0].portability', 'anywhere', 'warns', 'taken'],
  ['identity', 'structured.sub_agents[0].status', 'sleeping', 'warns', 'taken'],
  // The schema's limits, errors as a record's are (the reader reads any number, any u32): a neural_matrix value and the
  // linguistics levels 0..1, a capability's priority at least 1.
  ['identity', 'structured.psychology.neural_matrix.curiosity', 1.5, 'invalid', 'taken'],
  ['identity', 'structured.linguistics.formality_level', -0.5, 'invalid', 'taken'],
  ['identity', 'structured.linguistics.humor_level', 1, 'valid', 'taken'],
  ['identity', 'structured.capabilities[0].priority', 0, 'invalid', 'taken'],

  // principals.json.
  ['principals', 'principals', undefined, 'invalid', 'refused'],
  ['principals', 'principals', null, 'invalid', 'refused'],
  ['principals', 'principals[0].profile', undefined, 'invalid', 'refused'],
  ['principals', 'principals[0].principal_type', null, 'invalid', 'refused'],
  ['principals', 'principals[0].profile.version', '1', 'invalid', 'refused'],
  ['principals', 'principals[0].profile.updated_at', 'yesterday', 'invalid', 'refused'],
  ['principals', 'principals[0].profile.structured.work_context.projects', null, 'invalid', 'refused'],
  ['principals', 'principals[0].agent_id', null, 'valid', 'taken'],
  ['principals', 'principals[0].profile.structured', null, 'valid', 'taken'],
  ['principals', 'principals[0].profile.structured.name', null, 'valid', 'taken'],
  ['principals', 'principals[0].profile.version', 4294967295, 'valid', 'taken'],
  ['principals', 'principals[0].profile.version', 4294967296, 'invalid', 'refused'],
  // The profile names its principal: compared as UUIDs, so one UUID in two forms matches, as there.
  ['principals', 'principals[0].id', `urn:uuid:${PRINCIPAL}`, 'valid', 'taken'],
  ['principals', 'principals[0].profile.principal_id', `{${PRINCIPAL.toUpperCase()}}`, 'valid', 'taken'],
  ['principals', 'principals[0].profile.principal_id', PRINCIPAL.replace(/-/g, ''), 'valid', 'taken'],
  ['principals', 'principals[0].profile.agent_id', `urn:uuid:${AGENT_ID}`, 'valid', 'taken'],
  ['principals', 'principals[0].profile.principal_id', 'alice', 'invalid', 'refused'],
  // Validator rules: another principal's profile, a profile version 0.
  ['principals', 'principals[0].profile.principal_id', OTHER, 'invalid', 'taken'],
  ['principals', 'principals[0].profile.version', 0, 'invalid', 'taken'],
  ['principals', 'principals[0].principal_type', 'organization', 'warns', 'taken'],
  // validate_principals has no rule on a name: an empty one is valid.
  ['principals', 'principals[0].profile.structured.name', '', 'valid', 'taken'],

  // credentials.json.
  ['credentials', 'credentials', null, 'invalid', 'refused'],
  ['credentials', 'credentials[0].service', undefined, 'invalid', 'refused'],
  ['credentials', 'credentials[0].encryption.nonce', undefined, 'invalid', 'refused'],
  ['credentials', 'credentials[0].created_at', 5, 'invalid', 'refused'],
  ['credentials', 'credentials[0].created_at', '2026-01-15T10:00:00', 'invalid', 'refused'],
  ['credentials', 'credentials[0].tags', null, 'invalid', 'refused'],
  ['credentials', 'credentials[0].label', null, 'valid', 'taken'],
  ['credentials', 'credentials[0].expires_at', null, 'valid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf', null, 'valid', 'taken'],
  // kdf_params null reads as absent: valid for the reader, but argon2id without them is the validator's error.
  ['credentials', 'credentials[0].encryption.kdf_params', null, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.time_cost', 4294967295, 'valid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.time_cost', 4294967296, 'invalid', 'refused'],
  ['credentials', 'credentials[0].encryption.kdf_params.parallelism', -1, 'invalid', 'refused'],
  ['credentials', 'credentials[0].encryption.kdf_params.memory_cost', 1e20, 'invalid', 'refused'],
  ['credentials', 'credentials[0].id', URN, 'valid', 'taken'],
  ['credentials', 'credentials[0].id', BRACED, 'valid', 'taken'],
  ['credentials', 'credentials[0].agent_id', AGENT_ID.replace(/-/g, '').toUpperCase(), 'valid', 'taken'],
  ['credentials', 'credentials[0].id', 'key-1', 'invalid', 'refused'],
  // Validator rules: an empty service, payload or algorithm; an unknown type warns. A label is a `String`, empty or not.
  ['credentials', 'credentials[0].service', '', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encrypted_payload', '', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.algorithm', '', 'invalid', 'taken'],
  ['credentials', 'credentials[0].credential_type', 'biometric', 'warns', 'taken'],
  ['credentials', 'credentials[0].label', '', 'valid', 'taken'],
  // The schema's limits: each kdf_params cost at least 1 (any u32 or u64 reads).
  ['credentials', 'credentials[0].encryption.kdf_params.memory_cost', 0, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.parallelism', 0, 'invalid', 'taken'],
  // validate_encryption_metadata: the nonce's length for its algorithm and base64, the payload's base64,
  // argon2id's kdf_params and OWASP's least costs (errors); "none", an unknown algorithm or KDF (warnings).
  ['credentials', 'credentials[0].encryption.kdf_params.time_cost', 1, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.time_cost', 2, 'valid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.memory_cost', 19455, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.memory_cost', 19456, 'valid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf_params.parallelism', undefined, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.kdf', 'scrypt', 'warns', 'taken'],
  ['credentials', 'credentials[0].encryption.nonce', 'bg==', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.nonce', '', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.nonce', `${NONCE_24.slice(0, -1)}!`, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.nonce', NONCE_12, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption', { algorithm: 'aes-256-gcm', nonce: NONCE_12 }, 'valid', 'taken'],
  ['credentials', 'credentials[0].encryption', { algorithm: 'aes-256-gcm', nonce: NONCE_24 }, 'invalid', 'taken'],
  ['credentials', 'credentials[0].encrypted_payload', 'eA=', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encrypted_payload', 'eA', 'invalid', 'taken'],
  ['credentials', 'credentials[0].encryption.algorithm', 'none', 'warns', 'taken'],
  ['credentials', 'credentials[0].encryption.algorithm', 'rot13', 'warns', 'taken'],
];

const CASES: ParityCase[] = [
  ...RECORD_ROWS.flatMap(([field, value, validate, ingest]) => (['snapshot', 'delta'] as const).map((how) => row(how, 'record', field, value, validate, ingest))),
  ...MANIFEST_ROWS,
  ...ATTACHMENT_ROWS,
  ...LAYER_ROWS.flatMap(([where, field, value, validate, ingest]) => (['snapshot', 'delta'] as const).map((how) => row(how, where, field, value, validate, ingest))),
];

/** The layer documents as written, each valid: every `Option` given, a capability and a sub-agent named. */
function layerDocuments(): Record<'identity' | 'principals' | 'credentials' | 'attachments', Record<string, unknown>> {
  return {
    identity: {
      id: '0190a000-0000-7000-8000-0000000000c0', agent_id: AGENT_ID, version: 1, updated_at: TIME, source_format: 'openclaw',
      structured: {
        names: { primary: 'Atlas', nickname: 'At' }, goals: ['help'],
        capabilities: [{ name: 'search', priority: 1, portability: 'intrinsic', credential_ids: [CREDENTIAL] }],
        sub_agents: [{ agent_id: SUB_AGENT, name: 'scout', capabilities: [], status: 'active' }],
      },
    },
    principals: {
      principals: [{
        id: PRINCIPAL, principal_type: 'human', agent_id: null,
        profile: {
          id: '0190a000-0000-7000-8000-0000000000c4', agent_id: AGENT_ID, principal_id: PRINCIPAL, version: 1, updated_at: TIME,
          structured: { name: 'Alice', principal_type: 'human', work_context: { role: 'eng', projects: ['alf'] } },
        },
      }],
    },
    credentials: {
      credentials: [{
        id: CREDENTIAL, agent_id: AGENT_ID, service: 'openai', credential_type: 'api_key', encrypted_payload: 'eA==', created_at: TIME, label: 'key', tags: ['prod'],
        encryption: { algorithm: 'xchacha20-poly1305', nonce: NONCE_24, kdf: 'argon2id', kdf_params: { memory_cost: 65536, time_cost: 3, parallelism: 4 } },
      }],
    },
    attachments: {
      artifact_size_threshold: 1024,
      attachments: [{
        id: '0190a000-0000-7000-8000-0000000000ab', filename: 'a.txt', media_type: 'text/plain', size_bytes: 1,
        hash: { algorithm: 'sha256', value: '00' }, source_path: 'a.txt', archive_path: null, remote_ref: 'ref:a',
      }],
    },
  };
}

/** A layer's entry in a snapshot's `layers` and in a delta's `changes`. */
const SNAPSHOT_ENTRY = {
  identity: { version: 1, file: 'identity.json' }, principals: { count: 1, file: 'principals.json' },
  credentials: { count: 1, file: 'credentials.json' }, attachments: { count: 1, file: 'attachments.json' },
};
const DELTA_ENTRY = {
  identity: { file: 'identity.json', new_version: 1 }, principals: { file: 'principals.json', changed_ids: [PRINCIPAL] },
  credentials: { file: 'credentials.json' },
};

let made = 100;
function bytesOf(c: ParityCase, baseSequence: number): Uint8Array {
  const record = structuredClone(makeRecord(made++)) as unknown as Record<string, unknown>;
  const manifest: Record<string, unknown> = c.how === 'snapshot'
    ? {
      alf_version: '1.0.0', created_at: TIME, agent: { id: AGENT_ID, name: 'parity', source_runtime: 'openclaw' },
      layers: { memory: { record_count: 1, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 1, sealed: false }] } },
    }
    : {
      alf_version: '1.0.0', created_at: TIME, agent: { id: AGENT_ID, source_runtime: 'openclaw' },
      sync: { base_sequence: baseSequence, new_sequence: 0 }, changes: { memory: { file: 'memory/delta.jsonl', record_count: 1 } },
    };
  const layers = layerDocuments();
  const layer = c.where === 'record' || c.where === 'manifest' ? null : c.where;
  if (layer !== null && c.how === 'snapshot') setPath(manifest, `layers.${layer}`, SNAPSHOT_ENTRY[layer]);
  if (layer !== null && layer !== 'attachments' && c.how === 'delta') setPath(manifest, `changes.${layer}`, DELTA_ENTRY[layer]);
  setPath(c.where === 'record' ? record : c.where === 'manifest' ? manifest : layers[c.where], c.field, structuredClone(c.value));
  const extra = c.field === 'layers.attachments' ? [{ name: 'attachments.json', data: '{"attachments":[]}' }]
    : layer !== null ? [{ name: `${layer}.json`, data: JSON.stringify(layers[layer]) }] : [];
  return c.how === 'snapshot'
    ? craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${JSON.stringify(record)}\n` }, ...extra, { name: 'manifest.json', data: JSON.stringify(manifest) }])
    : craftZip([{ name: 'memory/delta.jsonl', data: `${JSON.stringify({ operation: 'create', ...record })}\n` }, ...extra, { name: 'delta-manifest.json', data: JSON.stringify(manifest) }]);
}

let ledger: Ledger;
let cleanup: () => void;
beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  registerAgent({ ledger, id: AGENT_ID, name: 'parity', sourceRuntime: 'openclaw', tenantId: null, now: new Date(TIME) });
  await ingestSnapshot({ ledger, agentId: AGENT_ID, bytes: bytesOf(row('snapshot', 'record', 'category', 'core', 'valid', 'taken'), 0), now: new Date(TIME) });
});
afterAll(() => cleanup?.());

/** `validate`'s verdict on `bytes`: `warns` when valid with a warning at the case's field. */
async function validateVerdict(c: ParityCase, bytes: Uint8Array): Promise<{ verdict: ParityCase['validate']; said: string }> {
  const report = await validateArchive(bytes);
  const pointer = `/${c.field.replace(/\[(\d+)\]/g, '.$1').split('.').join('/')}`;
  const warned = report.warnings.some((w) => w.path.endsWith(pointer) || w.path.endsWith(`${pointer}/0`) || w.message.includes(JSON.stringify(c.value)));
  const verdict = !report.valid ? 'invalid' : warned ? 'warns' : 'valid';
  return { verdict, said: JSON.stringify(report.valid ? report.warnings : report.errors).slice(0, 300) };
}

/** Ingest's verdict on `bytes`: `refused` for a 400 (`bad_archive`, or `agent_mismatch` for the manifest's agent.id), nothing stored. */
async function ingestVerdict(c: ParityCase, bytes: Uint8Array): Promise<{ verdict: ParityCase['ingest']; said: string }> {
  const latest = getAgent({ ledger, agentId: AGENT_ID })!.latest_sequence!;
  try {
    const now = new Date(TIME);
    if (c.how === 'snapshot') await ingestSnapshot({ ledger, agentId: AGENT_ID, bytes, now });
    else await ingestDelta({ ledger, agentId: AGENT_ID, baseSequence: latest, bytes, now });
    return { verdict: 'taken', said: '' };
  } catch (error) {
    if (!isLedgerError(error) || !['bad_archive', 'agent_mismatch'].includes(error.code)) throw error;
    expect(getAgent({ ledger, agentId: AGENT_ID })!.latest_sequence).toBe(latest);
    return { verdict: 'refused', said: error.message.slice(0, 300) };
  }
}

describe('lineage validate and ingest, against the reference reader and validate (CONTRACT §3, §4.1; the schemas)', () => {
  it('give the verdict of each row', async () => {
    const wrong: string[] = [];
    for (const c of CASES) {
      const latest = getAgent({ ledger, agentId: AGENT_ID })!.latest_sequence!;
      const bytes = bytesOf(c, latest);
      const shown = `${c.how} ${c.where} ${c.field} = ${JSON.stringify(c.value)}`;
      const v = await validateVerdict(c, bytes);
      if (v.verdict !== c.validate) wrong.push(`${shown}: validate ${v.verdict}, expected ${c.validate}: ${v.said}`);
      const i = await ingestVerdict(c, bytes);
      if (i.verdict !== c.ingest) wrong.push(`${shown}: ingest ${i.verdict}, expected ${c.ingest} ${i.said}`);
    }
    expect(wrong).toEqual([]);
  });
});
