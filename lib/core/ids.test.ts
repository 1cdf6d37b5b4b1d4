import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkBirthId, chunkBirthIds, hermesCuratedId, hermesSessionId, identityId, NS, principalId, remintId } from './ids';
import { rustLines, rustTrimEnd } from './rust-str';

const golden = JSON.parse(
  fs.readFileSync(path.resolve(process.cwd(), '../shared/alf/fixtures/captured/openclaw-memory-dto.golden.json'), 'utf8'),
) as {
  sample_dto: { id: string; content: string; source: { origin_file: string } };
  id_test_vectors: { what: string; namespace_bytes: string; name: string; uuid: string }[];
};
const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

describe('record ids (CONTRACT §4.2)', () => {
  it('reproduces the golden OpenClaw birth id', () => {
    const id = chunkBirthId({ runtime: 'openclaw', agentId: AGENT, originFile: golden.sample_dto.source.origin_file, content: golden.sample_dto.content, occurrence: 0 });
    expect(id).toBe(golden.sample_dto.id);
  });

  it('reproduces the identity, principal and Hermes vectors', () => {
    expect(identityId(AGENT)).toBe('45cfd460-f3dc-5f62-b30b-03f31387866e');
    expect(principalId(AGENT, 'human')).toBe('d1f32c37-8eef-59cd-91f8-c5713a97300f');
    expect(hermesCuratedId('Same note.', 0)).toBe('940cb1c3-0d3b-50c7-a3a1-dac850dce5b9');
  });

  // Literals computed independently: python3 uuid.uuid5(UUID(bytes=b'alf-id-ns-v5-001'), name).
  it('pins the Hermes curated occurrence suffix and session ids to independent literals', () => {
    expect(hermesCuratedId('Same note.', 1)).toBe('de462e17-c5ae-5f9d-ae86-d8bd53d63c9a');
    expect(hermesSessionId('sess-open')).toBe('7647e7a3-97ef-5817-b222-4703697ee78a');
    expect(hermesSessionId('20260101_120000_aa')).toBe('6a0f1635-4f67-5c19-a11d-b2c1c7ea1e0f');
  });

  it("reproduces the golden fixture's Hermes vectors (today: one curated entry)", () => {
    const hermes = golden.id_test_vectors
      .filter((v) => v.name.startsWith('hermes-'))
      .map((v) => ({ namespace_bytes: v.namespace_bytes, name: v.name, uuid: v.uuid }));
    expect(hermes).toEqual([
      { namespace_bytes: 'alf-id-ns-v5-001', name: 'hermes-curated:Same note.', uuid: hermesCuratedId('Same note.', 0) },
    ]);
  });

  it('uses the 16 ASCII bytes of each namespace name', () => {
    expect(NS.openclaw).toBe('6f70656e-636c-6177-2d61-6c662d6e7331');
    expect(NS.alf).toBe('616c662d-6964-2d6e-732d-76352d303031');
    expect(NS.openclawAgent).toBe('616c662d-6167-656e-742d-69642d6e7331');
  });

  it('counts occurrences of identical trimmed content within a file', () => {
    const ids = chunkBirthIds({ runtime: 'openclaw', agentId: AGENT, originFile: 'MEMORY.md', contents: ['## A\nx', '## A\nx\n\n', '## B'] });
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[1]).toBe(chunkBirthId({ runtime: 'openclaw', agentId: AGENT, originFile: 'MEMORY.md', content: '## A\nx', occurrence: 1 }));
  });

  it('re-mints with the first free counter', () => {
    const taken = new Set<string>();
    const a = remintId({ agentId: AGENT, scope: 'MEMORY.md', content: 'c', taken: (x) => taken.has(x) });
    taken.add(a);
    const b = remintId({ agentId: AGENT, scope: 'MEMORY.md', content: 'c', taken: (x) => taken.has(x) });
    expect(b).not.toBe(a);
  });
});

describe('Rust string semantics', () => {
  it('trim_end strips U+0085 but not U+FEFF', () => {
    expect(rustTrimEnd('a \u0085\t\n')).toBe('a');
    expect(rustTrimEnd('a\uFEFF')).toBe('a\uFEFF');
  });
  it('lines() strips one \\r and yields no trailing empty line', () => {
    expect(rustLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(rustLines('a\r\r\n\n')).toEqual(['a\r', '']);
    expect(rustLines('')).toEqual([]);
  });
});

describe('orderRecordFields', () => {
  it('keeps a hostile "__proto__" key as data and known fields first', async () => {
    const { orderRecordFields } = await import('./record');
    const record = JSON.parse('{"zzz":1,"__proto__":{"polluted":true},"id":"x","agent_id":"a","content":"c","memory_type":"semantic","source":{"runtime":"r"},"temporal":{"created_at":"t"},"status":"active","namespace":"n"}');
    const ordered = orderRecordFields(record);
    expect(Object.keys(ordered).slice(0, 3)).toEqual(['id', 'agent_id', 'content']);
    expect(JSON.stringify(ordered)).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
