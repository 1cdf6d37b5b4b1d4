/**
 * The checks the reference `alf validate` makes beyond the JSON schemas (alf-core validation.rs and
 * the CLI's validate command, restated): partition order and ranges, the identity's agent, the
 * principals' back-references, and warnings for top-level fields a newer version may have added.
 */
import { isJsonObject, type JsonObject } from '../json';
import { IDENTITY, type Struct } from '../reader-structs';
import { REFERENCE_UUID } from '../typed-fields';
import { isUuid } from '../uuid';
import { child, type Issues } from './rules';

/**
 * A rule check that warns on every key outside `struct`'s fields (reader-structs.ts: the keys the
 * reference knows), as one from a newer ALF (kept by readers, so never an error).
 */
export function warnUnknownKeys(struct: Struct): (value: JsonObject, path: string, issues: Issues) => void {
  const set = new Set(struct.fields.map(([name]) => name));
  return (value, path, issues) => {
    for (const key of Object.keys(value)) {
      if (!set.has(key)) issues.warn(child(path, key), `unknown field ${JSON.stringify(key)}; it may be from a newer ALF version`);
    }
  };
}

/**
 * An identity's names: its primary name, each capability's and each sub-agent's must not be empty
 * (validation.rs validate_identity), besides the unknown-field warnings. A wrong type is the rule's
 * (manifest-rules.ts `LAYER_DOCS`, from the reader's struct).
 */
export function checkIdentity(identity: JsonObject, path: string, issues: Issues): void {
  warnIdentityKeys(identity, path, issues);
  const structured = isJsonObject(identity.structured) ? identity.structured : null;
  if (structured === null) return;
  const at = child(path, 'structured');
  if (isJsonObject(structured.names) && structured.names.primary === '') {
    issues.error(child(child(at, 'names'), 'primary'), 'Primary name must not be empty');
  }
  for (const [list, what] of [['capabilities', 'Capability'], ['sub_agents', 'Sub-agent']] as const) {
    const items = structured[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, index) => {
      if (isJsonObject(item) && item.name === '') issues.error(child(child(child(at, list), index), 'name'), `${what} name must not be empty`);
    });
  }
}
const warnIdentityKeys = warnUnknownKeys(IDENTITY);

/** A sealed partition needs its `to`; a `to` must not precede its `from`. */
export function checkPartitionRange(partition: JsonObject, path: string, issues: Issues): void {
  const { from, to, sealed, file } = partition;
  const name = JSON.stringify(typeof file === 'string' ? file : '');
  if (sealed === true && (to === undefined || to === null)) issues.error(path, `partition ${name} is sealed but has no 'to' date`);
  if (typeof to === 'string' && typeof from === 'string' && to < from) {
    issues.error(path, `partition ${name} has 'to' (${to}) before 'from' (${from})`);
  }
}

/** Partitions are listed chronologically by `from` (YYYY-MM-DD strings compare as dates). */
export function checkPartitionOrder(memory: JsonObject, path: string, issues: Issues): void {
  const partitions = Array.isArray(memory.partitions) ? memory.partitions : [];
  for (let i = 1; i < partitions.length; i++) {
    const prev = partitions[i - 1];
    const next = partitions[i];
    if (!isJsonObject(prev) || !isJsonObject(next) || typeof prev.from !== 'string' || typeof next.from !== 'string') continue;
    if (next.from < prev.from) {
      issues.error(`${path}/partitions`,
        `partitions out of order: ${JSON.stringify(next.file)} (${next.from}) appears after ${JSON.stringify(prev.file)} (${prev.from})`);
    }
  }
}

/**
 * The UUID that `text` writes, in any form the reference reader's `Uuid` takes (`REFERENCE_UUID`:
 * hyphenated, 32 hex digits, braced, `urn:uuid:`; any case), as lowercase hyphenated text; null
 * when it writes none. The reference validator compares `Uuid` values, so two ids are the same
 * exactly when their values are equal, whatever their forms.
 */
export function uuidValue(text: unknown): string | null {
  if (typeof text !== 'string' || !REFERENCE_UUID.test(text)) return null;
  const hex = text.replace(/^urn:uuid:/i, '').replace(/[{}-]/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Whether two ids that the rule's types let through (both UUIDs, in any form) write different
 * UUIDs; false when either is not a UUID (the rule's to say, once).
 */
function differentUuids(a: unknown, b: unknown): boolean {
  const first = uuidValue(a);
  const second = uuidValue(b);
  return first !== null && second !== null && first !== second;
}

/**
 * A principal's profile has a version of at least 1 and names the principal it belongs to
 * (validation.rs validate_principals). Only what the rule's types let through is looked at: a
 * version 0 (a negative or fractional one is not a u32, the rule's to say), and the two ids when
 * both are UUIDs, compared as UUID values (`{…}`, `urn:uuid:…` and 32 hex digits of the same UUID
 * match, as there; one missing or not a UUID is the rule's).
 */
export function checkPrincipal(principal: JsonObject, path: string, issues: Issues): void {
  const profile = principal.profile;
  if (!isJsonObject(profile)) return;
  if (profile.version === 0) {
    issues.error(child(child(path, 'profile'), 'version'), `profile version must be at least 1, got ${profile.version}`);
  }
  if (differentUuids(profile.principal_id, principal.id)) {
    issues.error(child(child(path, 'profile'), 'principal_id'),
      `profile principal_id (${profile.principal_id}) does not match principal id (${principal.id})`);
  }
}

/**
 * A manifest's `agent.id` in a form the reference reader's `Uuid` takes but not hyphenated (braced,
 * `urn:uuid:`, 32 hex digits): valid, as `alf validate` says; a ledger compares it with the agent's
 * id as text and refuses the upload (`agent_mismatch`), so it warns.
 */
export function warnAgentIdForm(manifest: JsonObject, file: string, issues: Issues): void {
  const id = isJsonObject(manifest.agent) ? manifest.agent.id : undefined;
  if (typeof id === 'string' && REFERENCE_UUID.test(id) && !isUuid(id)) {
    issues.warn(`${file}#/agent/id`, `${JSON.stringify(id)} is not in the hyphenated form 8-4-4-4-12; the reference reader takes it, a ledger refuses an upload naming its agent so`);
  }
}

/**
 * The identity document belongs to the archive's agent: its `agent_id` and the manifest's
 * `agent.id` are the same UUID, in whatever forms (as `checkPrincipal` compares); either not a
 * UUID is its rule's to say. A snapshot's is the reference `alf validate`'s error ("Identity
 * agent_id … does not match manifest agent_id"); a delta's identity is the full document that
 * replaces the snapshot's when the delta is applied (CONTRACT §3.2, §6 rebuild), so it is held to
 * the same rule against the delta manifest's `agent.id` (`manifestFile`, named in the message).
 */
export function checkIdentityAgent(identity: JsonObject | null, manifest: JsonObject, issues: Issues, manifestFile?: string): void {
  const agent = isJsonObject(manifest.agent) ? manifest.agent : {};
  if (!identity) return;
  if (differentUuids(identity.agent_id, agent.id)) {
    issues.error('identity.json#/agent_id', `identity agent_id (${identity.agent_id}) does not match ${manifestFile ?? 'manifest'} agent id (${agent.id})`);
  }
}

/**
 * RFC 3986's URI: a scheme (a letter, then letters, digits, `+`, `-`, `.`), a colon, and the rest in
 * its characters (unreserved, reserved, `%` and two hex digits).
 */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/;

/**
 * An attachment's `remote_ref` (attachments.schema.json: `"format": "uri"`) that is not a URI warns:
 * the reference reader reads any string there and JSON Schema's `format` is an annotation, so the
 * archive stays valid, as for a record's `raw_source_format` that is not an object.
 */
export function warnRemoteRef(attachment: JsonObject, path: string, issues: Issues): void {
  const ref = attachment.remote_ref;
  if (typeof ref === 'string' && !URI.test(ref)) {
    issues.warn(child(path, 'remote_ref'), `${JSON.stringify(ref)} is not a URI (scheme:…), as attachments.schema.json wants; the reference reader reads any string here`);
  }
}

/** The AEAD algorithms the reference knows, each with its nonce's length in bytes (validation.rs). */
const NONCE_BYTES: Readonly<Record<string, number>> = { 'xchacha20-poly1305': 24, 'aes-256-gcm': 12 };
/** Argon2id's least costs there (OWASP: 19 MiB of memory, 2 passes, 1 lane), each with its unit. */
const ARGON2ID_LEAST: readonly [field: string, least: number, unit: string][] = [['memory_cost', 19_456, ' KiB'], ['time_cost', 2, ''], ['parallelism', 1, '']];

/**
 * How many bytes `text` decodes to as standard base64 (alphabet `A-Z a-z 0-9 + /`, padded with `=`
 * to a multiple of 4, unused bits zero: the only text of those bytes), or null when it is not that.
 */
export function base64Length(text: string): number | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes.length : null;
}

/**
 * A credential's encryption, as the reference validator checks it (validation.rs
 * validate_encryption_metadata), on what the rule's types let through. `algorithm: "none"` (a legacy
 * record with no ciphertext) warns and ends the checks; an empty nonce is an error and ends them. For
 * a known algorithm the nonce must be base64 of its length (24 bytes for xchacha20-poly1305, 12 for
 * aes-256-gcm) and the payload base64; an unknown algorithm warns. Both warnings are errors under
 * `--strict-crypto` (`Issues.strictCrypto`). A `kdf` of `argon2id` needs `kdf_params` with each cost
 * at least OWASP's least (a cost below 1 is the schema's error, said once); another `kdf` warns.
 */
export function checkCredential(credential: JsonObject, path: string, issues: Issues): void {
  const encryption = credential.encryption;
  if (!isJsonObject(encryption)) return;
  const at = child(path, 'encryption');
  const { algorithm, nonce } = encryption;
  const lenient = (where: string, message: string) => (issues.strictCrypto
    ? issues.error(where, message)
    : issues.warn(where, `${message} (an error with --strict-crypto)`));
  if (typeof algorithm !== 'string' || algorithm === '') return;
  if (algorithm === 'none') {
    lenient(child(at, 'algorithm'), 'algorithm "none": a legacy metadata-only credential, with no ciphertext to verify');
    return;
  }
  if (typeof nonce !== 'string') return;
  if (nonce === '') {
    issues.error(child(at, 'nonce'), 'must not be empty');
    return;
  }
  const nonceBytes = NONCE_BYTES[algorithm];
  if (nonceBytes === undefined) {
    lenient(child(at, 'algorithm'), `unknown encryption algorithm ${JSON.stringify(algorithm)}; known: xchacha20-poly1305, aes-256-gcm`);
  } else {
    const length = base64Length(nonce);
    if (length === null) issues.error(child(at, 'nonce'), 'is not valid base64 (standard alphabet, padded)');
    else if (length !== nonceBytes) issues.error(child(at, 'nonce'), `${algorithm} takes a nonce of ${nonceBytes} bytes, this one is ${length}`);
    const payload = credential.encrypted_payload;
    if (typeof payload === 'string' && base64Length(payload) === null) {
      issues.error(child(path, 'encrypted_payload'), 'is not valid base64 (standard alphabet, padded)');
    }
  }
  checkKdf(encryption, at, issues);
}

function checkKdf(encryption: JsonObject, at: string, issues: Issues): void {
  const { kdf, kdf_params: params } = encryption;
  if (typeof kdf !== 'string') return; // absent or null: no KDF (another type is the rule's)
  if (kdf !== 'argon2id') {
    issues.warn(child(at, 'kdf'), `unknown KDF ${JSON.stringify(kdf)}; only argon2id is known`);
    return;
  }
  if (params === undefined || params === null) {
    issues.error(child(at, 'kdf_params'), 'argon2id needs kdf_params (memory_cost, time_cost, parallelism)');
    return;
  }
  if (!isJsonObject(params)) return;
  for (const [field, least, unit] of ARGON2ID_LEAST) {
    const cost = params[field];
    const where = child(child(at, 'kdf_params'), field);
    if (cost === undefined || cost === null) issues.error(where, `argon2id needs ${field}`);
    else if (typeof cost === 'number' && cost >= 1 && cost < least) {
      issues.error(where, `argon2id ${field} ${cost} is below the OWASP minimum ${least}${unit}`);
    }
  }
}
