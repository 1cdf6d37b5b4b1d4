import { describe, expect, it } from 'vitest';
import { readSnapshot, writeDelta, writeSnapshot } from './archive/index';
import { craftZip } from './archive/testing/craft-zip';
import { AGENT_ID, makeDelta, makeRecord, makeSnapshot, setPath, syntheticAgentBytes } from './archive/testing/fixtures';
import type { JsonObject } from './json';
import type { MemoryRecord } from './record';
import { validateArchive } from './validate';

/**
 * A one-record snapshot whose record is `record` (written as-is, so it may be invalid; text as its line), with
 * `documents` (layer documents, as text) beside it.
 */
function snapshotWith(record: JsonObject | string, partition: JsonObject = {}, documents: Record<string, string> = {}): Uint8Array {
  const manifest = {
    alf_version: '1.0.0',
    created_at: '2026-01-01T00:00:00Z',
    agent: { id: AGENT_ID, name: 'n', source_runtime: 'openclaw' },
    layers: {
      memory: {
        record_count: 1,
        index_file: 'memory/index.json',
        partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 1, sealed: false, ...partition }],
      },
    },
  };
  return craftZip([
    { name: 'memory/2026-Q1.jsonl', data: `${typeof record === 'string' ? record : JSON.stringify(record)}\n` },
    ...Object.entries(documents).map(([name, data]) => ({ name, data })),
    { name: 'manifest.json', data: JSON.stringify(manifest) },
  ]);
}

const RECORD_PATH = 'memory/2026-Q1.jsonl:1';
/** A credential's nonce as xchacha20-poly1305 takes it: 24 bytes, in base64. */
const NONCE_24 = Buffer.alloc(24, 7).toString('base64');

/**
 * The synthetic fixture's verdict: valid, and warned only of its credentials' algorithms and KDFs
 * (lorem ipsum: unknown to the reference's validate_encryption_metadata), each of them.
 */
function onlyCryptoWarnings(report: { valid: boolean; errors: unknown[]; warnings: { path: string; message: string }[] }): boolean {
  return report.valid && report.errors.length === 0 && report.warnings.length > 0
    && report.warnings.every((w) => /^credentials\.json#\/credentials\/\d+\/encryption\/(algorithm|kdf)$/.test(w.path) && /^unknown (encryption algorithm|KDF) /.test(w.message));
}

describe('validateArchive on snapshots', () => {
  it('accepts the synthetic reference fixture, as the reference does (it has no raw_sources rule), warning only of its lorem-ipsum credential algorithms and KDFs', async () => {
    expect(onlyCryptoWarnings(await validateArchive(syntheticAgentBytes()))).toBe(true);
  });

  it('accepts what writeSnapshot writes from the fixture, raw_sources now consistent', async () => {
    const report = await validateArchive(await writeSnapshot(await readSnapshot(syntheticAgentBytes())));
    expect(onlyCryptoWarnings(report)).toBe(true);
  });

  it('accepts any UUID version and a record with only the required fields', async () => {
    const report = await validateArchive(snapshotWith({ ...makeRecord(1), id: 'b6973f0f-14c3-5e24-9a20-783413ae0332' }));
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('warns, and stays valid, on enum values outside the known sets', async () => {
    const record: MemoryRecord = {
      ...makeRecord(1),
      memory_type: 'dream',
      status: 'pending',
      source: { runtime: 'openclaw', extraction_method: 'telepathy' },
      entities: [{ name: 'Ada', type: 'ghost' }],
      embeddings: [{ model: 'm', dimensions: 2, vector: [0.1, 0.2], computed_at: '2026-01-01T00:00:00+05:30', source: 'oracle' }],
    };
    const report = await validateArchive(snapshotWith(record));
    expect(report.valid).toBe(true);
    expect(report.errors).toEqual([]);
    // In the order of the reader's fields (lib/core/reader-structs.ts RECORD), the rules' source.
    expect(report.warnings.map((w) => w.path)).toEqual([
      `${RECORD_PATH}#/memory_type`,
      `${RECORD_PATH}#/status`,
      `${RECORD_PATH}#/source/extraction_method`,
      `${RECORD_PATH}#/entities/0/type`,
      `${RECORD_PATH}#/embeddings/0/source`,
    ]);
    expect(report.warnings[0]?.message).toMatch(/unknown value "dream"/);
  });

  it('reports a missing content with its path', async () => {
    const { content: _content, ...record } = makeRecord(1);
    const report = await validateArchive(snapshotWith(record));
    expect(report.valid).toBe(false);
    expect(report.errors).toContainEqual({ path: `${RECORD_PATH}#/content`, message: 'is required' });
  });

  it('reports schema violations in records', async () => {
    const record = {
      ...makeRecord(1),
      content: '',
      agent_id: 'not-a-uuid',
      confidence: 1.5,
      temporal: { created_at: 'yesterday', observed_at: null },
      source: { runtime: '' },
      embeddings: [{ model: 'm', dimensions: 3, vector: [0.1], computed_at: '2026-01-01T00:00:00Z', source: 'runtime' }],
      entities: [{ type: 'person' }],
    };
    const report = await validateArchive(snapshotWith(record));
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual(expect.arrayContaining([
      { path: `${RECORD_PATH}#/agent_id`, message: 'is not a valid uuid' },
      { path: `${RECORD_PATH}#/content`, message: 'must not be empty' },
      { path: `${RECORD_PATH}#/source/runtime`, message: 'must not be empty' },
      { path: `${RECORD_PATH}#/temporal/created_at`, message: 'is not a valid date-time' },
      { path: `${RECORD_PATH}#/confidence`, message: 'must be at most 1' },
      { path: `${RECORD_PATH}#/entities/0/name`, message: 'is required' },
      { path: `${RECORD_PATH}#/embeddings/0/vector`, message: 'has 1 values but dimensions is 3' },
    ]));
  });

  it('calls a u64 past its largest invalid, as the reference reader and ingest refuse it; its largest is valid', async () => {
    // 18446744073709551615 parses to 2^64 as a JSON number: that passes, anything larger does not.
    const past = await validateArchive(snapshotWith(makeRecord(1, { access_count: 1e20 })));
    expect(past).toEqual({
      valid: false,
      errors: [{ path: `${RECORD_PATH}#/temporal/access_count`, message: 'must be at most 18446744073709551615' }],
      warnings: [],
    });
    const largest = JSON.stringify(makeRecord(1)).replace('"temporal":{', '"temporal":{"access_count":18446744073709551615,');
    expect(await validateArchive(snapshotWith(largest))).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('names a u64 past its largest beside another error in the same record', async () => {
    // It was the typed check's alone, which ran only when the rule found nothing else: unnamed beside an empty content.
    const record = await validateArchive(snapshotWith({ ...makeRecord(1, { access_count: 1e20 }), content: '' }));
    expect(record.errors).toEqual([
      { path: `${RECORD_PATH}#/content`, message: 'must not be empty' },
      { path: `${RECORD_PATH}#/temporal/access_count`, message: 'must be at most 18446744073709551615' },
    ]);
  });

  it('reports a partition record_count that does not match the file', async () => {
    const report = await validateArchive(snapshotWith(makeRecord(1), { record_count: 2 }));
    expect(report.valid).toBe(false);
    expect(report.errors).toContainEqual({
      path: 'manifest.json#/layers/memory/partitions/0/record_count',
      message: 'says 2 but memory/2026-Q1.jsonl holds 1 records',
    });
  });

  it('reports manifest schema errors', async () => {
    const bytes = craftZip([{ name: 'manifest.json', data: JSON.stringify({ alf_version: '1', agent: { id: AGENT_ID }, layers: {} }) }]);
    const report = await validateArchive(bytes);
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.path)).toEqual(expect.arrayContaining([
      'manifest.json#/alf_version', 'manifest.json#/created_at', 'manifest.json#/agent/name', 'manifest.json#/agent/source_runtime',
    ]));
  });

  it('returns valid:false rather than throwing for a non-archive', async () => {
    const report = await validateArchive(Buffer.from('plain text'));
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ path: 'archive', message: expect.stringMatching(/^not_a_zip: /) });
  });
});

describe('validateArchive on identity names (the reference validate_identity)', () => {
  it('an empty primary, capability or sub-agent name is an error; the archive still reads', async () => {
    const identity = {
      id: '11111111-1111-5111-8111-111111111111', agent_id: AGENT_ID, version: 1, updated_at: '2026-01-01T00:00:00Z',
      structured: {
        names: { primary: '' }, capabilities: [{ name: 'search' }, { name: '' }],
        sub_agents: [{ name: '', capabilities: [], status: 'active' }],
      },
    };
    const snapshot = makeSnapshot([makeRecord(1)]);
    snapshot.layers.identity = identity;
    const report = await validateArchive(await writeSnapshot(snapshot));
    expect(report.errors).toEqual([
      { path: 'identity.json#/structured/names/primary', message: 'Primary name must not be empty' },
      { path: 'identity.json#/structured/capabilities/1/name', message: 'Capability name must not be empty' },
      { path: 'identity.json#/structured/sub_agents/0/name', message: 'Sub-agent name must not be empty' },
    ]);
    snapshot.layers.identity = { ...identity, structured: { names: { primary: 'Atlas' }, capabilities: [{ name: 'search' }] } };
    expect(await validateArchive(await writeSnapshot(snapshot))).toEqual({ valid: true, errors: [], warnings: [] });
  });
});

describe('validateArchive on principals and credentials (the reference validate_principals, validate_credentials)', () => {
  it('checks each credential\'s encryption as validate_encryption_metadata does; --strict-crypto makes "none" and an unknown algorithm errors', async () => {
    const at = (i: number, rest: string) => `credentials.json#/credentials/${i}/${rest}`;
    const encryptions: JsonObject[] = [
      /* 0 */ { algorithm: 'xchacha20-poly1305', nonce: NONCE_24, kdf: 'argon2id', kdf_params: { memory_cost: 19_456, time_cost: 2, parallelism: 1 } },
      /* 1 */ { algorithm: 'aes-256-gcm', nonce: Buffer.alloc(12).toString('base64') },
      /* 2 */ { algorithm: 'none', nonce: '', kdf: 'argon2id' }, // legacy: nothing else is looked at
      /* 3 */ { algorithm: 'rot13', nonce: 'x', kdf: 'scrypt' },
      /* 4 */ { algorithm: 'aes-256-gcm', nonce: NONCE_24 },
      /* 5 */ { algorithm: 'xchacha20-poly1305', nonce: 'bg=' },
      /* 6 */ { algorithm: 'xchacha20-poly1305', nonce: '', kdf: 'argon2id' }, // an empty nonce ends the checks
      /* 7 */ { algorithm: 'xchacha20-poly1305', nonce: NONCE_24, kdf: 'argon2id' },
      /* 8 */ { algorithm: 'xchacha20-poly1305', nonce: NONCE_24, kdf: 'argon2id', kdf_params: { memory_cost: 19_455, time_cost: 1 } },
    ];
    const snapshot = makeSnapshot([makeRecord(1)]);
    snapshot.layers.credentials = { credentials: encryptions.map((encryption, i) => ({
      id: `22222222-2222-4222-8222-22222222222${i}`, agent_id: AGENT_ID, service: 'openai', credential_type: 'api_key',
      encrypted_payload: i === 1 ? 'not base64' : 'Y2lwaGVy', encryption, created_at: '2026-01-01T00:00:00Z',
    })) };
    const bytes = await writeSnapshot(snapshot);
    const errors = [
      { path: at(1, 'encrypted_payload'), message: 'is not valid base64 (standard alphabet, padded)' },
      { path: at(4, 'encryption/nonce'), message: 'aes-256-gcm takes a nonce of 12 bytes, this one is 24' },
      { path: at(5, 'encryption/nonce'), message: 'is not valid base64 (standard alphabet, padded)' },
      { path: at(6, 'encryption/nonce'), message: 'must not be empty' },
      { path: at(7, 'encryption/kdf_params'), message: 'argon2id needs kdf_params (memory_cost, time_cost, parallelism)' },
      { path: at(8, 'encryption/kdf_params/memory_cost'), message: 'argon2id memory_cost 19455 is below the OWASP minimum 19456 KiB' },
      { path: at(8, 'encryption/kdf_params/time_cost'), message: 'argon2id time_cost 1 is below the OWASP minimum 2' },
      { path: at(8, 'encryption/kdf_params/parallelism'), message: 'argon2id needs parallelism' },
    ];
    const none = { path: at(2, 'encryption/algorithm'), message: 'algorithm "none": a legacy metadata-only credential, with no ciphertext to verify' };
    const rot13 = { path: at(3, 'encryption/algorithm'), message: 'unknown encryption algorithm "rot13"; known: xchacha20-poly1305, aes-256-gcm' };
    const scrypt = { path: at(3, 'encryption/kdf'), message: 'unknown KDF "scrypt"; only argon2id is known' };
    const lenient = await validateArchive(bytes);
    expect(lenient.errors).toEqual(errors);
    const strictly = (issue: { path: string; message: string }) => ({ ...issue, message: `${issue.message} (an error with --strict-crypto)` });
    expect(lenient.warnings).toEqual([strictly(none), strictly(rot13), scrypt]);
    const strict = await validateArchive(bytes, undefined, { strictCrypto: true });
    expect(strict.errors).toEqual([errors[0], none, rot13, ...errors.slice(1)]);
    expect(strict.warnings).toEqual([scrypt]);
  });

  it('an empty service, payload or algorithm is an error; an unknown principal or credential type warns', async () => {
    const credential = (over: JsonObject) => ({
      id: '22222222-2222-4222-8222-222222222222', agent_id: AGENT_ID, service: 'openai', credential_type: 'api_key',
      encrypted_payload: 'Y2lwaGVy', encryption: { algorithm: 'xchacha20-poly1305', nonce: NONCE_24 }, created_at: '2026-01-01T00:00:00Z', ...over,
    });
    const principal = { id: '33333333-3333-4333-8333-333333333333', principal_type: 'organization', profile: {
      id: '44444444-4444-4444-8444-444444444444', agent_id: AGENT_ID, principal_id: '33333333-3333-4333-8333-333333333333', version: 1, updated_at: '2026-01-01T00:00:00Z',
    } };
    const snapshot = makeSnapshot([makeRecord(1)]);
    snapshot.layers.principals = { principals: [principal] };
    snapshot.layers.credentials = { credentials: [
      credential({ service: '' }), credential({ encrypted_payload: '' }), credential({ encryption: { algorithm: '', nonce: NONCE_24 } }), credential({ credential_type: 'biometric' }),
    ] };
    const report = await validateArchive(await writeSnapshot(snapshot));
    expect(report.errors.map((e) => e.path)).toEqual([
      'credentials.json#/credentials/0/service', 'credentials.json#/credentials/1/encrypted_payload', 'credentials.json#/credentials/2/encryption/algorithm',
    ]);
    expect(report.warnings.map((w) => w.path)).toEqual(['principals.json#/principals/0/principal_type', 'credentials.json#/credentials/3/credential_type']);
  });
});

describe('validateArchive on identity enums (identity.schema.json: a capability\'s portability, a sub-agent\'s status)', () => {
  it('an unknown value warns, at its pointer; the archive stays valid, as the reference reader reads any string there', async () => {
    const capability = (portability: string) => ({ name: 'search', portability });
    const identity = {
      id: '11111111-1111-5111-8111-111111111111', agent_id: AGENT_ID, version: 1, updated_at: '2026-01-01T00:00:00Z',
      structured: {
        names: { primary: 'Atlas' }, capabilities: [capability('intrinsic'), capability('anywhere')],
        sub_agents: [{ name: 'scout', capabilities: [capability('host_dependent'), capability('cloud')], status: 'sleeping' }, { name: 'b', capabilities: [], status: 'unavailable' }],
      },
    };
    const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'identity.json': JSON.stringify(identity) }));
    expect(report).toEqual({
      valid: true, errors: [], warnings: [
        { path: 'identity.json#/structured/capabilities/1/portability', message: 'unknown value "anywhere" (known: intrinsic, host_dependent)' },
        { path: 'identity.json#/structured/sub_agents/0/capabilities/1/portability', message: 'unknown value "cloud" (known: intrinsic, host_dependent)' },
        { path: 'identity.json#/structured/sub_agents/0/status', message: 'unknown value "sleeping" (known: active, inactive, unavailable)' },
      ],
    });
  });
});

describe('validateArchive compares ids as UUID values, as the reference validator compares its `Uuid`s', () => {
  const PRINCIPAL = '0190a000-0000-7000-8000-0000000000aa';
  /** The same UUID, as the uuid crate writes and parses it. */
  const FORMS = [
    PRINCIPAL, PRINCIPAL.toUpperCase(), `urn:uuid:${PRINCIPAL}`, `{${PRINCIPAL.toUpperCase()}}`, PRINCIPAL.replace(/-/g, ''),
  ];
  const principals = (id: string, principalId: string) => JSON.stringify({ principals: [{
    id, principal_type: 'human',
    profile: { id: '44444444-4444-4444-8444-444444444444', agent_id: AGENT_ID, principal_id: principalId, version: 1, updated_at: '2026-01-01T00:00:00Z' },
  }] });
  const identity = (agentId: string) => JSON.stringify({ id: '11111111-1111-5111-8111-111111111111', agent_id: agentId, version: 1, updated_at: '2026-01-01T00:00:00Z' });

  it('a profile\'s principal_id in another form of its principal\'s id matches; another UUID does not', async () => {
    for (const id of FORMS) {
      for (const principalId of FORMS) {
        const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'principals.json': principals(id, principalId) }));
        expect(report, `${id} / ${principalId}`).toEqual({ valid: true, errors: [], warnings: [] });
      }
    }
    const other = '0190a000-0000-7000-8000-0000000000ab';
    const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'principals.json': principals(`urn:uuid:${PRINCIPAL}`, other) }));
    expect(report.errors).toEqual([{
      path: 'principals.json#/principals/0/profile/principal_id',
      message: `profile principal_id (${other}) does not match principal id (urn:uuid:${PRINCIPAL})`,
    }]);
  });

  it('a principal_id that is not a UUID is said once, by the rule', async () => {
    const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'principals.json': principals(PRINCIPAL, 'alice') }));
    expect(report.errors).toEqual([{ path: 'principals.json#/principals/0/profile/principal_id', message: 'is not a valid uuid' }]);
  });

  it('the identity\'s agent_id in another form of the manifest\'s agent id matches; another UUID does not', async () => {
    const agentForms = [AGENT_ID.toUpperCase(), `urn:uuid:${AGENT_ID}`, `{${AGENT_ID}}`, AGENT_ID.replace(/-/g, '').toUpperCase()];
    for (const agentId of agentForms) {
      const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'identity.json': identity(agentId) }));
      expect(report, agentId).toEqual({ valid: true, errors: [], warnings: [] });
    }
    const other = '22222222-2222-4222-8222-222222222222';
    const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'identity.json': identity(`{${other}}`) }));
    expect(report.errors).toEqual([{
      path: 'identity.json#/agent_id', message: `identity agent_id ({${other}}) does not match manifest agent id (${AGENT_ID})`,
    }]);
  });

  it('an identity agent_id that is not a UUID is said once, by the rule', async () => {
    const report = await validateArchive(snapshotWith(makeRecord(1), {}, { 'identity.json': identity('atlas') }));
    expect(report.errors).toEqual([{ path: 'identity.json#/agent_id', message: 'is not a valid uuid' }]);
  });

  it('a delta\'s identity belongs to the delta manifest\'s agent, as a snapshot\'s to its manifest\'s: another UUID is an error, another form of it matches', async () => {
    const delta = async (agentId: string, manifestFile = 'delta-manifest.json') => {
      const manifest = { ...makeDelta().manifest, changes: { identity: { file: 'identity.json', new_version: 1 } } };
      return validateArchive(craftZip([{ name: 'identity.json', data: identity(agentId) }, { name: manifestFile, data: JSON.stringify(manifest) }]));
    };
    for (const agentId of [AGENT_ID, AGENT_ID.toUpperCase(), `urn:uuid:${AGENT_ID}`, `{${AGENT_ID}}`, AGENT_ID.replace(/-/g, '')]) {
      expect(await delta(agentId), agentId).toEqual({ valid: true, errors: [], warnings: [] });
    }
    const other = '22222222-2222-4222-8222-222222222222';
    for (const file of ['delta-manifest.json', 'manifest.json']) {
      const report = await delta(other, file);
      expect(report.errors, file).toEqual([{
        path: 'identity.json#/agent_id', message: `identity agent_id (${other}) does not match ${file} agent id (${AGENT_ID})`,
      }]);
    }
    expect((await delta('atlas')).errors).toEqual([{ path: 'identity.json#/agent_id', message: 'is not a valid uuid' }]);
  });

  it('two record ids that write one UUID are one id, whatever their forms (case, urn:uuid:, braces, no hyphens): a duplicate warns', async () => {
    const ID = '0190a000-0000-7000-8000-0000000000aa';
    const twoRecords = (first: string, second: string) => {
      const manifest = {
        alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id: AGENT_ID, name: 'n', source_runtime: 'openclaw' },
        layers: { memory: { record_count: 2, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 2, sealed: false }] } },
      };
      const lines = [{ ...makeRecord(1), id: first }, { ...makeRecord(2), id: second }].map((r) => `${JSON.stringify(r)}\n`).join('');
      return craftZip([{ name: 'memory/2026-Q1.jsonl', data: lines }, { name: 'manifest.json', data: JSON.stringify(manifest) }]);
    };
    for (const second of [ID, ID.toUpperCase(), `urn:uuid:${ID}`, `{${ID.toUpperCase()}}`, ID.replace(/-/g, '')]) {
      const report = await validateArchive(twoRecords(ID, second));
      expect(report.valid, second).toBe(true);
      expect(report.warnings.filter((w) => /duplicate/.test(w.message)), second).toEqual([{
        path: 'memory/2026-Q1.jsonl:2#/id',
        message: `duplicate record id ${second} (first at memory/2026-Q1.jsonl:1${second === ID ? '' : `, as ${ID}`}); a ledger refuses it`,
      }]);
    }
    const other = await validateArchive(twoRecords(ID, '0190a000-0000-7000-8000-0000000000ab'));
    expect(other).toEqual({ valid: true, errors: [], warnings: [] });
    // A delta's lines the same.
    const lines = [['create', ID], ['update', `{${ID}}`]].map(([operation, id]) => `${JSON.stringify({ operation, ...makeRecord(1), id })}\n`).join('');
    const manifest = { ...makeDelta().manifest, changes: { memory: { file: 'memory/delta.jsonl', record_count: 2 } } };
    const delta = await validateArchive(craftZip([{ name: 'memory/delta.jsonl', data: lines }, { name: 'delta-manifest.json', data: JSON.stringify(manifest) }]));
    expect(delta.warnings.filter((w) => /duplicate/.test(w.message))).toEqual([{
      path: 'memory/delta.jsonl:2#/id', message: `duplicate record id {${ID}} (first at memory/delta.jsonl:1, as ${ID}); a ledger refuses it`,
    }]);
  });
});

describe('validateArchive on layer documents: types from the reader\'s structs (reader-structs.ts LAYER_STRUCTS)', () => {
  const TIME = '2026-01-15T10:00:00Z';
  const OTHER = '0190a000-0000-7000-8000-00000000ffff';
  const PRINCIPAL = '33333333-3333-4333-8333-333333333333';
  const capability = () => ({ name: 'web_search', description: 'd', priority: 1, portability: 'intrinsic', host_requirements: 'h', credential_ids: [OTHER] });
  /** Each layer document with every field of its struct given, as the reference reader reads it. */
  const full = (): Record<string, JsonObject> => ({
    'identity.json': {
      id: '11111111-1111-5111-8111-111111111111', agent_id: AGENT_ID, version: 2, updated_at: TIME, source_format: 'openclaw', raw_source: { any: [1] },
      structured: {
        names: { primary: 'Atlas', nickname: 'At', full: 'Atlas Full' }, role: 'helper', goals: ['help'],
        psychology: { neural_matrix: { curiosity: 0.9 }, personality_traits: { framework: 'OCEAN', scores: { openness: 0.8 } }, moral_alignment: 'NG', mbti: 'INTJ' },
        linguistics: {
          formality_level: 0.5, verbosity: 0.4, humor_level: 0.1, slang_usage: false, preferred_language: 'en',
          idiolect: { catchphrases: ['hm'], verbal_tics: [], avoided_words: ['very'] },
        },
        capabilities: [capability()],
        sub_agents: [{
          agent_id: OTHER, name: 'scout', capabilities: [capability()], status: 'active', description: 'd', model_hints: { primary_model: 'm', last_model: 'm' },
          routing_hints: 'r', last_invoked_at: TIME, performance_notes: 'p',
        }],
        aieos_extensions: { bio: 'b' },
      },
      prose: { soul: 'be kind', operating_instructions: 'o', identity_profile: 'i', custom_blocks: { tools_guidance: 't' } },
    },
    'principals.json': {
      principals: [{
        id: PRINCIPAL, principal_type: 'human', agent_id: null,
        profile: {
          id: OTHER, agent_id: AGENT_ID, principal_id: PRINCIPAL, version: 1, updated_at: TIME, source_format: 'openclaw', raw_source: 'USER.md',
          structured: {
            name: 'Alice', principal_type: 'human', timezone: 'UTC', locale: 'en-US', communication_preferences: { tone: 'casual', response_length: 'short', formatting: 'none' },
            work_context: { role: 'eng', company: 'Acme', projects: ['alf'] }, relationships: [{ any: 'thing' }, 3], custom_fields: { x: 1 },
          },
          prose: { user_profile: 'Alice.' },
        },
      }],
    },
    'credentials.json': {
      credentials: [{
        id: '22222222-2222-4222-8222-222222222222', agent_id: AGENT_ID, service: 'openai', credential_type: 'api_key', encrypted_payload: 'eA==', created_at: TIME,
        encryption: { algorithm: 'xchacha20-poly1305', nonce: NONCE_24, kdf: 'argon2id', kdf_params: { memory_cost: 65536, time_cost: 3, parallelism: 4 } },
        label: 'key', capabilities_granted: ['web_search'], updated_at: TIME, last_rotated_at: TIME, expires_at: TIME, tags: ['prod'],
      }],
    },
    'attachments.json': {
      artifact_size_threshold: 102400,
      attachments: [{
        id: '0190a000-0000-7000-8000-0000000000ab', filename: 'notes.txt', media_type: 'text/plain', size_bytes: 5, hash: { algorithm: 'sha256', value: 'ab' },
        source_path: 'notes.txt', archive_path: null, remote_ref: 'ref:notes', referenced_by: [OTHER],
      }],
    },
  });
  const withDocument = (file: string, edit: (doc: JsonObject) => void = () => {}) => {
    const doc = full()[file]!;
    edit(doc);
    return validateArchive(snapshotWith(makeRecord(1), {}, { [file]: JSON.stringify(doc) }));
  };

  it('takes each document with every field of its struct given', async () => {
    for (const file of Object.keys(full())) expect(await withDocument(file), file).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('says each wrong field once, at its pointer, and every one of them', async () => {
    const wrong: [file: string, field: string, value: unknown, errors: [path: string, message: string][]][] = [
      // The rule and the typed check both said this one (`identity.json: version "2" is not a whole number …` besides).
      ['identity.json', 'version', '2', [['#/version', 'expected an integer']]],
      ['identity.json', 'structured.linguistics.slang_usage', 'yes', [['#/structured/linguistics/slang_usage', 'expected a boolean']]],
      ['identity.json', 'structured.psychology.neural_matrix.curiosity', 'high', [['#/structured/psychology/neural_matrix/curiosity', 'expected a number']]],
      ['identity.json', 'structured.capabilities[0].priority', -1, [['#/structured/capabilities/0/priority', 'must be at least 1']]],
      ['identity.json', 'structured.sub_agents[0].last_invoked_at', 'yesterday', [['#/structured/sub_agents/0/last_invoked_at', 'is not a valid date-time']]],
      ['identity.json', 'structured.goals', null, [['#/structured/goals', 'expected an array']]],
      // Said three times: the rule, the typed check, and a principal_id "not matching" null.
      ['principals.json', 'principals[0].id', null, [['#/principals/0/id', 'expected a string']]],
      ['principals.json', 'principals[0].profile.version', '1', [['#/principals/0/profile/version', 'expected an integer']]],
      ['principals.json', 'principals[0].profile.structured.work_context.projects', 'alf', [['#/principals/0/profile/structured/work_context/projects', 'expected an array']]],
      ['credentials.json', 'credentials[0].created_at', 5, [['#/credentials/0/created_at', 'expected a string']]],
      ['credentials.json', 'credentials[0].encryption.kdf_params.time_cost', 4294967296, [['#/credentials/0/encryption/kdf_params/time_cost', 'must be at most 4294967295']]],
      ['credentials.json', 'credentials[0].encryption.nonce', undefined, [['#/credentials/0/encryption/nonce', 'is required']]],
      // The typed check named only the first of two.
      ['attachments.json', 'attachments[0]', { id: OTHER, filename: 'a', media_type: 'text/plain', size_bytes: 1e20, hash: { algorithm: 'sha256', value: '00' }, source_path: 5 }, [
        ['#/attachments/0/size_bytes', 'must be at most 18446744073709551615'], ['#/attachments/0/source_path', 'expected a string'],
      ]],
      ['attachments.json', 'artifact_size_threshold', -1, [['#/artifact_size_threshold', 'must be at least 0']]],
    ];
    for (const [file, field, value, errors] of wrong) {
      const report = await withDocument(file, (doc) => setPath(doc, field, value));
      expect(report, `${file} ${field} = ${JSON.stringify(value)}`).toEqual({
        valid: false, errors: errors.map(([at, message]) => ({ path: `${file}${at}`, message })), warnings: [],
      });
    }
  });
  it('enforces the schemas\' limits (identity, credentials), as a record\'s: an error at the pointer; a remote_ref that is no URI warns', async () => {
    const limits: [file: string, field: string, value: unknown, message: string][] = [
      // identity.schema.json: neural_matrix values and the linguistics levels 0.0–1.0, a capability's priority at least 1.
      ['identity.json', 'structured.psychology.neural_matrix.curiosity', 1.5, 'must be at most 1'],
      ['identity.json', 'structured.psychology.neural_matrix.curiosity', -0.1, 'must be at least 0'],
      ['identity.json', 'structured.linguistics.formality_level', 1.01, 'must be at most 1'],
      ['identity.json', 'structured.linguistics.verbosity', -1, 'must be at least 0'],
      ['identity.json', 'structured.linguistics.humor_level', 2, 'must be at most 1'],
      ['identity.json', 'structured.capabilities[0].priority', 0, 'must be at least 1'],
      ['identity.json', 'structured.sub_agents[0].capabilities[0].priority', 0, 'must be at least 1'],
      // credentials.schema.json: each kdf_params cost at least 1.
      ['credentials.json', 'credentials[0].encryption.kdf_params.memory_cost', 0, 'must be at least 1'],
      ['credentials.json', 'credentials[0].encryption.kdf_params.time_cost', 0, 'must be at least 1'],
      ['credentials.json', 'credentials[0].encryption.kdf_params.parallelism', 0, 'must be at least 1'],
    ];
    for (const [file, field, value, message] of limits) {
      const report = await withDocument(file, (doc) => setPath(doc, field, value));
      const path = `${file}#/${field.replace(/\[(\d+)\]/g, '.$1').split('.').join('/')}`;
      expect(report, `${file} ${field} = ${value}`).toEqual({ valid: false, errors: [{ path, message }], warnings: [] });
    }
    const bounds: [file: string, field: string, value: unknown][] = [
      ['identity.json', 'structured.psychology.neural_matrix.curiosity', 0], ['identity.json', 'structured.psychology.neural_matrix.curiosity', 1],
      ['identity.json', 'structured.linguistics.formality_level', 0], ['identity.json', 'structured.linguistics.humor_level', 1],
      ['identity.json', 'structured.capabilities[0].priority', 1], ['credentials.json', 'credentials[0].encryption.kdf_params.parallelism', 1],
      ['attachments.json', 'attachments[0].remote_ref', 'https://artifacts.example/notes.txt?v=1#top'],
    ];
    for (const [file, field, value] of bounds) {
      expect(await withDocument(file, (doc) => setPath(doc, field, value)), `${file} ${field} = ${value}`).toEqual({ valid: true, errors: [], warnings: [] });
    }
    // attachments.schema.json: remote_ref's format is a URI; the reader reads any string, and the schema's format is an annotation.
    for (const value of ['notes.txt', 'a b:c', '']) {
      expect(await withDocument('attachments.json', (doc) => setPath(doc, 'attachments[0].remote_ref', value)), value).toEqual({
        valid: true, errors: [], warnings: [{ path: 'attachments.json#/attachments/0/remote_ref', message: `${JSON.stringify(value)} is not a URI (scheme:…), as attachments.schema.json wants; the reference reader reads any string here` }],
      });
    }
  });
});

describe('validateArchive on deltas', () => {
  const snapshotRecord = makeRecord(1);

  it('accepts what writeDelta writes', async () => {
    const bytes = await writeDelta(makeDelta({
      entries: [{ operation: 'update', record: snapshotRecord }],
      rawChanged: new Map([['raw/openclaw/MEMORY.md', Buffer.from('x')]]),
      rawDeleted: ['raw/openclaw/old.md'],
    }));
    expect(await validateArchive(bytes)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('warns on an unknown operation and errors on a count mismatch', async () => {
    const manifest = { ...makeDelta().manifest, changes: { memory: { file: 'memory/delta.jsonl', record_count: 5 } } };
    const bytes = craftZip([
      { name: 'memory/delta.jsonl', data: `${JSON.stringify({ operation: 'merge', ...snapshotRecord })}\n` },
      { name: 'raw/openclaw/unlisted.md', data: 'x' },
      { name: 'delta-manifest.json', data: JSON.stringify(manifest) },
    ]);
    const report = await validateArchive(bytes);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      { path: 'delta-manifest.json#/changes/memory/record_count', message: 'says 5 but memory/delta.jsonl holds 1 entries' },
    ]);
    expect(report.warnings.map((w) => w.path)).toEqual(['memory/delta.jsonl:1#/operation', 'raw/openclaw/unlisted.md']);
  });

  it('reports delta manifest schema errors', async () => {
    const bytes = craftZip([{ name: 'delta-manifest.json', data: JSON.stringify({ agent: { id: AGENT_ID }, sync: { base_sequence: 1 } }) }]);
    const report = await validateArchive(bytes);
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.path)).toEqual(expect.arrayContaining([
      'delta-manifest.json#/sync/new_sequence', 'delta-manifest.json#/changes', 'delta-manifest.json#/alf_version',
    ]));
  });

  it('reads a delta manifest stored as manifest.json, with a warning', async () => {
    const bytes = craftZip([{ name: 'manifest.json', data: JSON.stringify(makeDelta().manifest) }]);
    const report = await validateArchive(bytes);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([{ path: 'manifest.json', message: expect.stringMatching(/delta-manifest\.json/) }]);
  });

  it('names the file a delta manifest was read from, manifest.json or delta-manifest.json, in each error about it', async () => {
    const twice = (text: string) => text.replace(/"base_sequence":(\d+)/, '"base_sequence":$1,"base_sequence":$1');
    const bad: [name: string, change: (manifest: JsonObject) => void, edit: (text: string) => string, at: string][] = [
      ['sync.new_sequence a string', (m) => { (m.sync as JsonObject).new_sequence = '0'; }, (t) => t, '#/sync/new_sequence'],
      ['changes.memory.file another file', (m) => { m.changes = { memory: { file: 'memory/other.jsonl' } }; }, (t) => t, '#/changes/memory/file'],
      ['changes.principals.file another file', (m) => { m.changes = { principals: { file: 'people.json' } }; }, (t) => t, '#/changes/principals/file'],
      ['sync.base_sequence twice', () => {}, twice, ''],
    ];
    for (const file of ['manifest.json', 'delta-manifest.json']) {
      for (const [name, change, edit, at] of bad) {
        const manifest = structuredClone(makeDelta().manifest);
        change(manifest);
        const report = await validateArchive(craftZip([{ name: file, data: edit(JSON.stringify(manifest)) }]));
        expect(report.errors, `${file} ${name}`).toEqual([{ path: `${file}${at}`, message: expect.any(String) }]);
      }
    }
  });

  it('keeps a snapshot from being mistaken for a delta', async () => {
    const report = await validateArchive(await writeSnapshot(makeSnapshot([snapshotRecord])));
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
  });
});
