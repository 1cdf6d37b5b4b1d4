import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { getAdapter } from '@/lib/adapters';
import { sessionRecord } from '@/lib/adapters/hermes/sessions';
import { rowToRecord } from '@/lib/adapters/zeroclaw/records';
import { readSnapshot } from '@/lib/core/archive';
import type { JsonValue } from '@/lib/core/json';
import { isStruct, RECORD, type Shape, type Struct } from '@/lib/core/reader-structs';
import { asMemoryRecord } from '@/lib/core/record';
import { shownValue, WHAT, type Kind } from '@/lib/core/typed-fields';
import { checkSnapshotRecord, wrongTypedField } from './ingest-checks';

type Rec = { [key: string]: JsonValue | undefined };
const AGENT = '7f8e9d0c-1b2a-4c3d-8e4f-5a6b7c8d9e0f';
const UUID = '0190a000-0000-7000-8000-00000000ffff';
const base = (): Rec => ({
  id: '0190a000-0000-7000-8000-000000000001', agent_id: AGENT, content: 'x', memory_type: 'semantic', namespace: 'curated', status: 'active',
  source: { runtime: 'openclaw' }, temporal: { created_at: '2026-01-15T10:00:00Z' },
});
const withField = (extra: Rec): Rec => ({ ...base(), ...extra });

describe('wrongTypedField: the reference reader\'s types of the known record fields', () => {
  it('takes what the typed record reads: null in optional scalars, every UUID form, any raw_source_format, unknown keys and enum values', () => {
    for (const extra of [
      {}, { category: null, supersedes: null, confidence: null }, { confidence: -5 }, { confidence: 1e308 },
      ...[UUID.toUpperCase(), UUID.replaceAll('-', ''), `{${UUID}}`, `urn:uuid:${UUID}`].map((supersedes) => ({ supersedes })),
      { raw_source_format: 'text' }, { raw_source_format: [1, 'a'] }, { raw_source_format: null }, { anything: { deep: [null, 1] } },
      { memory_type: 'dream', status: 'zombie' }, { tags: [] }, { tags: ['a', ''] },
      { source: { runtime: 'x', origin: null, extraction_method: 'dreamt', identity_version: 4_294_967_295, extra: [1] } },
      { temporal: { created_at: '2026-01-15T10:00:00Z', access_count: 0, extra: 'x' } },
      { temporal: { created_at: '2026-01-15T10:00:00Z', access_count: 18_446_744_073_709_551_615 } },
      { entities: [{ name: 'n', type: 'alien', role: null, x: 1 }] },
      { embeddings: [{ model: 'm', dimensions: 0, vector: [], computed_at: '2026-01-15T10:00:00+02:00', source: 'elsewhere' }] },
      { related_records: [{ id: UUID, relation: 'r', x: [] }] },
    ] as Rec[]) expect(wrongTypedField(withField(extra)), JSON.stringify(extra)).toBeNull();
  });

  it('names the first field of a type the reference refuses; an array field may not be null', () => {
    const cases: [Rec, string][] = [
      [{ tags: null }, 'tags null is not an array of strings'],
      [{ tags: 'a' }, 'tags "a" is not an array of strings'],
      [{ tags: ['a', 2] }, 'tags[1] 2 is not a string'],
      [{ entities: null }, 'entities null is not an array of objects'],
      [{ entities: [{ type: 'person' }] }, 'entities[0].name is missing'],
      [{ embeddings: [{ model: 'm', dimensions: -1, vector: [], computed_at: '2026-01-15T10:00:00Z', source: 's' }] }, 'embeddings[0].dimensions -1 is not a whole number 0 to 4294967295'],
      [{ embeddings: [{ model: 'm', dimensions: 1, vector: [null], computed_at: '2026-01-15T10:00:00Z', source: 's' }] }, 'embeddings[0].vector[0] null is not a number'],
      [{ related_records: [{ id: `${UUID}0`, relation: 'r' }] }, `related_records[0].id "${UUID}0" is not a UUID`],
      [{ agent_id: 'agent' }, 'agent_id "agent" is not a UUID'],
      [{ confidence: '1' }, 'confidence "1" is not a number'],
      [{ source: { runtime: 'x', session_id: 12 } }, 'source.session_id 12 is not a string'],
      [{ source: { runtime: 'x', identity_version: 4_294_967_296 } }, 'source.identity_version 4294967296 is not a whole number 0 to 4294967295'],
      [{ temporal: { created_at: '2026-01-15T10:00:00Z', access_count: -1 } }, 'temporal.access_count -1 is not a whole number 0 or more'],
      [{ category: 'x'.repeat(10), tags: [{ a: 'y'.repeat(200) }] }, `tags[0] {"a":"${'y'.repeat(74)}… (128 more characters) is not a string`],
    ];
    for (const [extra, says] of cases) expect(wrongTypedField(withField(extra))).toBe(says);
  });

  it('takes every record our own adapters make, the ones with the most typed fields among them', async () => {
    const warnings: string[] = [];
    const f32 = Buffer.alloc(64 * 4);
    for (let i = 0; i < 64; i++) f32.writeFloatLE(i / 7, i * 4);
    const zeroclaw = rowToRecord({
      id: 'k1', key: 'auto_save_1', content: 'c', category: 'daily', created_at: '2026-01-15T10:00:00Z', updated_at: '2026-01-16T10:00:00Z',
      session_id: 's', importance: 0.7, superseded_by: UUID, embedding: f32, namespace: 'n',
    }, { agentId: AGENT, now: '2026-01-20T00:00:00Z', warnings, idTextRestores: true });
    expect(zeroclaw.embeddings).toHaveLength(1);
    expect(zeroclaw.supersedes).toBe(UUID);
    const hermes = sessionRecord({ session: { id: 42, source: 'cli', started_at: 1_768_000_000 }, messages: [{ role: 'user', content: 'hi', timestamp: 1_768_000_100 }], agentId: AGENT, now: '2026-01-20T00:00:00Z', warnings });
    for (const made of [zeroclaw, hermes]) expect(wrongTypedField(made as Rec), JSON.stringify(made).slice(0, 200)).toBeNull();
    // And the reference's synthetic archive and the OpenClaw reference workspace as our export reads it.
    const root = path.resolve(process.cwd(), '../shared/alf/fixtures');
    const synthetic = await readSnapshot(fs.readFileSync(path.join(root, 'synthetic-agent.alf')));
    const openclaw = await getAdapter('openclaw').exportWorkspace({ workspace: path.join(root, 'openclaw/standard'), persistAgentId: false, clock: () => new Date('2026-02-01T00:00:00Z') });
    expect(synthetic.records.length).toBeGreaterThan(0);
    expect(openclaw.records.length).toBeGreaterThan(0);
    for (const made of [...synthetic.records, ...openclaw.records]) expect(wrongTypedField(made as Rec), made.id).toBeNull();
  });

  it('refuses agent_id "" in the first record a process checks (the remembered UUID started as "", which skipped the test)', async () => {
    vi.resetModules();
    const fresh = await import('./ingest-checks');
    expect(fresh.wrongTypedField(withField({ agent_id: '' }))).toBe('agent_id "" is not a UUID');
    expect(fresh.wrongTypedField(withField({}))).toBeNull();
    expect(fresh.wrongTypedField(withField({ agent_id: '' }))).toBe('agent_id "" is not a UUID');
  });

  it('refuses a value of another type in every typed field of the record\'s table (lib/core/reader-structs.ts): by wrongTypedField, or by the checks made before it', () => {
    const WRONG: Record<Kind, JsonValue> = { string: 5, uuid: 'not-a-uuid', number: '1', u32: -1, u64: 1.5, time: '2026-13-01T00:00:00Z', date: '2026-13-01', boolean: 'true' };
    const TIME = '2026-01-15T10:00:00Z';
    const full = (): Rec => withField({
      category: 'c', supersedes: UUID, confidence: 0.5,
      source: { runtime: 'openclaw', runtime_version: '1', origin: 'o', origin_file: 'f', extraction_method: 'e', session_id: 's', interaction_id: 'i', identity_version: 1 },
      temporal: { created_at: TIME, updated_at: TIME, observed_at: TIME, valid_from: TIME, valid_until: TIME, last_accessed_at: TIME, access_count: 3 },
      tags: ['t'], entities: [{ name: 'n', type: 't', role: 'r' }], embeddings: [{ model: 'm', dimensions: 1, vector: [0.5], computed_at: TIME, source: 's' }],
      related_records: [{ id: UUID, relation: 'r' }], raw_source_format: { any: 1 },
    });
    expect(wrongTypedField(full())).toBeNull();
    // Every place of the table a typed value goes (a field, a list item, an item's field): its path, how to put a value there, a wrong one, and what it is said not to be.
    const places: { path: string; set: (record: Rec, value: JsonValue) => void; wrong: JsonValue; what: string }[] = [];
    type Put = (record: Rec, value: JsonValue) => void;
    const add = (shape: Shape, path: string, put: Put, inside: (record: Rec) => JsonValue): void => {
      if (shape === 'value') return;
      if (typeof shape === 'string') places.push({ path, set: put, wrong: WRONG[shape], what: WHAT[shape] });
      else if (isStruct(shape)) {
        places.push({ path, set: put, wrong: 'x', what: 'an object' });
        walk(shape, (record) => inside(record) as Rec, `${path}.`);
      } else if ('list' in shape) {
        places.push({ path, set: put, wrong: 'x', what: `an array of ${shape.list === 'string' ? 'strings' : shape.list === 'number' ? 'numbers' : 'objects'}` });
        const items = (record: Rec) => inside(record) as JsonValue[];
        add(shape.list, `${path}[0]`, (record, value) => { items(record)[0] = value; }, (record) => items(record)[0]!);
      }
    };
    const walk = (struct: Struct, holder: (record: Rec) => Rec, at: string): void => {
      for (const [name, shape] of struct.fields) {
        add(shape, `${at}${name}`, (record, value) => { holder(record)[name] = value; }, (record) => holder(record)[name]!);
      }
    };
    walk(RECORD, (record) => record, '');
    expect(places.length).toBeGreaterThan(35);
    const before = (record: Rec): string | null => {
      try {
        checkSnapshotRecord(asMemoryRecord(record), 0);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    };
    let byWalk = 0;
    for (const place of places) {
      const record = full();
      place.set(record, place.wrong);
      const says = wrongTypedField(record);
      if (says !== null) {
        expect(says, place.path).toBe(`${place.path} ${shownValue(place.wrong)} is not ${place.what}`);
        byWalk++;
      } else {
        // Left to the checks every record meets first (asMemoryRecord, checkRecord): they refuse it, naming the field.
        expect(before(record) ?? 'taken', place.path).toContain(place.path.split('.').at(-1)!.replace('[0]', ''));
      }
    }
    expect(byWalk).toBeGreaterThan(25);
  });
});
