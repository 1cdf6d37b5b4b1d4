import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '@/lib/adapters';
import { identityLayer, principalsLayer } from '@/lib/adapters/hermes/layers';
import { readSnapshot } from './archive';
import type { LayerName } from './archive/types';
import type { JsonObject } from './json';
import { isKind, isRecordIdForm, recordIdProblem, wrongTypedLayerField, wrongTypedManifestField } from './typed-fields';
import { uuidV4, uuidV5 } from './uuid';
import { NS } from './ids';

const AGENT = '7f8e9d0c-1b2a-4c3d-8e4f-5a6b7c8d9e0f';
const UUID = '0190a000-0000-7000-8000-00000000ffff';
const TIME = '2026-01-15T10:00:00Z';
const identity = (extra: JsonObject = {}): JsonObject => ({ id: UUID, agent_id: AGENT, version: 1, updated_at: TIME, ...extra });
const principal = (profile: JsonObject = {}, extra: JsonObject = {}): JsonObject => ({
  principals: [{ id: UUID, principal_type: 'human', profile: { id: UUID, agent_id: AGENT, principal_id: UUID, version: 1, updated_at: TIME, ...profile }, ...extra }],
});

describe('wrongTypedLayerField: the reference reader\'s layer structs', () => {
  it('takes null in an Option, absent defaulted lists, unknown keys and enum strings, anything in a Value or an unknown key', () => {
    const taken: [LayerName, JsonObject][] = [
      ['identity', identity()],
      ['identity', identity({ structured: null, prose: null, source_format: null, raw_source: null, x: { y: [null] } })],
      ['identity', identity({ structured: { names: { primary: 'a', nickname: null }, aieos_extensions: 'any', capabilities: [{ name: 'n', portability: 'cloud' }] } })],
      ['identity', identity({ structured: { sub_agents: [{ agent_id: null, name: 'n', capabilities: [], status: 'sleeping', last_invoked_at: null }] } })],
      ['identity', identity({ structured: { psychology: { neural_matrix: {}, personality_traits: { framework: 'OCEAN', scores: { a: 1 } } } } })],
      ['principals', { principals: [] }],
      ['principals', principal({ structured: { relationships: [1, 'a', null], custom_fields: null } }, { principal_type: 'organization', agent_id: null })],
      ['credentials', { credentials: [] }],
      ['credentials', { credentials: [{ id: `urn:uuid:${UUID}`, agent_id: AGENT.toUpperCase(), service: 's', credential_type: 'biometric', encrypted_payload: 'x', encryption: { algorithm: 'a', nonce: 'n', kdf_params: null }, created_at: '2026-01-15T12:00:00+02:00', expires_at: null }] }],
      ['attachments', { attachments: [{ id: UUID, filename: 'f', media_type: 'm', size_bytes: 0, hash: { algorithm: 'a', value: 'v' }, source_path: 's' }] }],
    ];
    for (const [layer, doc] of taken) expect(wrongTypedLayerField(layer, doc), JSON.stringify(doc)).toBeNull();
  });

  it('names the first field missing, null where no Option is, or of another JSON type', () => {
    const cases: [LayerName, JsonObject, string][] = [
      ['identity', { agent_id: AGENT, version: 1, updated_at: TIME }, 'id is missing'],
      ['identity', identity({ version: -1 }), 'version -1 is not a whole number 0 to 4294967295'],
      ['identity', identity({ version: null }), 'version null is not a whole number 0 to 4294967295'],
      ['identity', identity({ structured: 'x' }), 'structured "x" is not an object'],
      ['identity', identity({ structured: { goals: null } }), 'structured.goals null is not an array'],
      ['identity', identity({ structured: { names: {} } }), 'structured.names.primary is missing'],
      ['identity', identity({ structured: { psychology: { neural_matrix: { a: '1' } } } }), 'structured.psychology.neural_matrix.a "1" is not a number'],
      ['identity', identity({ structured: { sub_agents: [{ name: 'n', status: 'active' }] } }), 'structured.sub_agents[0].capabilities is missing'],
      ['identity', identity({ prose: { custom_blocks: { a: 1 } } }), 'prose.custom_blocks.a 1 is not a string'],
      ['principals', {}, 'principals is missing'],
      ['principals', principal({ updated_at: '2026-13-01T00:00:00Z' }), 'principals[0].profile.updated_at "2026-13-01T00:00:00Z" is not an RFC 3339 time with a year 0000-9999'],
      ['principals', principal({}, { agent_id: 'm' }), 'principals[0].agent_id "m" is not a UUID'],
      ['credentials', { credentials: [{ id: UUID }] }, 'credentials[0].agent_id is missing'],
      ['attachments', { attachments: [{ id: UUID, filename: 'f', media_type: 'm', size_bytes: 1.5 }] }, 'attachments[0].size_bytes 1.5 is not a whole number 0 or more'],
    ];
    for (const [layer, doc, says] of cases) expect(wrongTypedLayerField(layer, doc)).toBe(says);
  });

  it('takes the layers our adapters make and the reference\'s synthetic archive', async () => {
    const root = path.resolve(process.cwd(), '../shared/alf/fixtures');
    const synthetic = await readSnapshot(fs.readFileSync(path.join(root, 'synthetic-agent.alf')));
    const openclaw = await getAdapter('openclaw').exportWorkspace({ workspace: path.join(root, 'openclaw/standard'), persistAgentId: false, clock: () => new Date('2026-02-01T00:00:00Z') });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-hermes-'));
    fs.writeFileSync(path.join(home, 'SOUL.md'), 'soul');
    fs.mkdirSync(path.join(home, 'memories'));
    fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'user');
    const hermes = { identity: await identityLayer(home, AGENT, 'soul'), principals: await principalsLayer(home, AGENT, 'user') };
    fs.rmSync(home, { recursive: true });
    expect(Object.keys(synthetic.layers).sort()).toEqual(['attachments', 'credentials', 'identity', 'principals']);
    expect(Object.keys(openclaw.layers).sort()).toEqual(['identity', 'principals']);
    for (const layers of [synthetic.layers, openclaw.layers, hermes]) {
      for (const [layer, doc] of Object.entries(layers)) expect(wrongTypedLayerField(layer as LayerName, doc as JsonObject), layer).toBeNull();
    }
  });
});

describe('wrongTypedManifestField: the reference reader\'s manifest structs', () => {
  const snapshot = (): JsonObject => ({
    alf_version: '1.0.0', created_at: TIME, agent: { id: AGENT, name: 'a', source_runtime: 'openclaw' },
    layers: { memory: { record_count: 1, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: null, record_count: 1, sealed: false }] } },
  });
  const delta = (): JsonObject => ({
    alf_version: '1.0.0', created_at: TIME, agent: { id: AGENT }, sync: { base_sequence: 1, new_sequence: 0 }, changes: { memory: { file: 'memory/delta.jsonl', record_count: 1 } },
  });

  it('takes null layer entries and changes, Options null, unknown keys', () => {
    expect(wrongTypedManifestField('snapshot', snapshot())).toBeNull();
    expect(wrongTypedManifestField('snapshot', { ...snapshot(), layers: { identity: null, principals: null, memory: null }, sync: null, runtime_hints: null, checksum: null, x: [1] })).toBeNull();
    expect(wrongTypedManifestField('delta', delta())).toBeNull();
    expect(wrongTypedManifestField('delta', { ...delta(), changes: { identity: null, memory: null, raw: null, principals: { changed_ids: [UUID] } } })).toBeNull();
  });

  it('names the first field missing, null where no Option is, or of another JSON type', () => {
    const cases: [JsonObject, 'snapshot' | 'delta', string][] = [
      [{ ...snapshot(), created_at: undefined as never }, 'snapshot', 'created_at is missing'],
      [{ ...snapshot(), alf_version: 1 }, 'snapshot', 'alf_version 1 is not a string'],
      [{ ...snapshot(), layers: { identity: { version: '2', file: 'identity.json' } } }, 'snapshot', 'layers.identity.version "2" is not a whole number 0 to 4294967295'],
      [{ ...snapshot(), layers: { memory: { record_count: 1, index_file: 'i', partitions: [{ file: 'f', from: '2026-01-01', record_count: 1, sealed: 'no' }] } } }, 'snapshot', 'layers.memory.partitions[0].sealed "no" is not true or false'],
      // A partition's dates are `NaiveDate`s there, the layers' counts `u32`s.
      [{ ...snapshot(), layers: { memory: { record_count: 1, index_file: 'i', partitions: [{ file: 'f', from: 'yesterday', record_count: 1, sealed: false }] } } }, 'snapshot', 'layers.memory.partitions[0].from "yesterday" is not a date YYYY-MM-DD'],
      [{ ...snapshot(), layers: { memory: { record_count: 1, index_file: 'i', partitions: [{ file: 'f', from: '2026-01-01', to: '2026-13-01', record_count: 1, sealed: false }] } } }, 'snapshot', 'layers.memory.partitions[0].to "2026-13-01" is not a date YYYY-MM-DD'],
      [{ ...snapshot(), layers: { principals: { count: 2 ** 32, file: 'principals.json' } } }, 'snapshot', 'layers.principals.count 4294967296 is not a whole number 0 to 4294967295'],
      [{ ...snapshot(), raw_sources: null }, 'snapshot', 'raw_sources null is not an array'],
      [{ ...delta(), sync: { base_sequence: 1 } }, 'delta', 'sync.new_sequence is missing'],
      [{ ...delta(), changes: { principals: { changed_ids: [5] } } }, 'delta', 'changes.principals.changed_ids[0] 5 is not a UUID'],
    ];
    for (const [doc, kind, says] of cases) expect(wrongTypedManifestField(kind, JSON.parse(JSON.stringify(doc)) as JsonObject)).toBe(says);
  });

  it('takes the reference\'s synthetic archive (our own writer\'s: tests/server/own-archives.property.test.ts)', async () => {
    const root = path.resolve(process.cwd(), '../shared/alf/fixtures');
    const synthetic = await readSnapshot(fs.readFileSync(path.join(root, 'synthetic-agent.alf')));
    expect(wrongTypedManifestField('snapshot', synthetic.manifest)).toBeNull();
  });
});

describe('a uuid field: the forms the uuid crate\'s parse_str takes', () => {
  it('takes hyphenated, 32 hex digits, braced and urn:uuid:, the hex digits in any case', () => {
    const upper = UUID.toUpperCase();
    for (const text of [UUID, upper, UUID.replaceAll('-', ''), upper.replaceAll('-', ''), `{${UUID}}`, `{${upper}}`, `urn:uuid:${UUID}`, `urn:uuid:${upper}`]) {
      expect(isKind(text, 'uuid'), text).toBe(true);
    }
  });

  it('refuses the urn:uuid: prefix in any other case (the crate strips it byte for byte), and other shapes', () => {
    for (const text of [`URN:UUID:${UUID}`, `Urn:uuid:${UUID}`, `urn:UUID:${UUID}`, `{${UUID.replaceAll('-', '')}}`, `${UUID}}`, `urn:uuid:${UUID.replaceAll('-', '')}`, ` ${UUID}`, UUID.slice(1)]) {
      expect(isKind(text, 'uuid'), text).toBe(false);
    }
  });
});

describe('a record id in a ledger: lowercase hyphenated only (CONTRACT §4.2)', () => {
  it('takes that form, and every id our own code mints', () => {
    expect(isRecordIdForm(UUID.toLowerCase())).toBe(true);
    expect(recordIdProblem(UUID.toLowerCase())).toBeNull();
    for (let i = 0; i < 50; i++) {
      expect(isRecordIdForm(uuidV5(NS.alf, `name ${i}`))).toBe(true);
      expect(isRecordIdForm(uuidV4((n) => Buffer.alloc(n, i * 5)))).toBe(true);
    }
  });

  it('refuses the other forms the reference reader takes, saying so, and what is no UUID, saying that', () => {
    const lower = UUID.toLowerCase();
    for (const text of [lower.toUpperCase(), `${lower.slice(0, -1)}F`, lower.replaceAll('-', ''), `{${lower}}`, `urn:uuid:${lower}`]) {
      expect(isRecordIdForm(text), text).toBe(false);
      expect(recordIdProblem(text)).toBe(`record id ${JSON.stringify(text)} is not in the lowercase hyphenated form 8-4-4-4-12 (CONTRACT §4.2): `
        + 'a ledger keys records by the id\'s text, and one UUID written in two forms would be two records');
    }
    for (const value of ['note-1', '', 7, null, undefined]) expect(recordIdProblem(value)).toBe(`record id ${JSON.stringify(value ?? null)} is not a UUID`);
  });
});
