/**
 * Ingest refuses what it could not serve later (issue 18 §4): each upload below was a 201 once, and
 * then broke a restore, a download or a query. Each is now a 400 saying what was wrong, and nothing
 * is written.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftZip, type CraftedEntry } from '@/lib/core/archive/testing/craft-zip';
import { deltaBytes, record, snapshotBytes } from './archives';
import { call, startTestServer, stateFingerprint, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
let t: TestServer;
let agent: string;

const deltaManifest = (id: string) => JSON.stringify({
  alf_version: '1.0.0', created_at: '2026-01-02T00:00:00Z', agent: { id, source_runtime: 'openclaw' },
  sync: { base_sequence: 1, new_sequence: 0 }, changes: {},
});
const snapshotManifest = (id: string) => JSON.stringify({
  alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id, name: 'n', source_runtime: 'openclaw' }, layers: {},
});
const nested = (depth: number) => `${'['.repeat(depth - 1)}{}${']'.repeat(depth - 1)}`;
/** A delta line of record `n` with `extra` fields (JSON text, so nesting is exact). */
const lineWith = (n: number, extra: Record<string, string> = {}, fields: object = {}) => {
  const base = JSON.stringify({ operation: 'create', ...record(agent, n), ...fields });
  const more = Object.entries(extra).map(([k, v]) => `,${JSON.stringify(k)}:${v}`).join('');
  return `${base.slice(0, -1)}${more}}`;
};
const delta = (...entries: CraftedEntry[]) => craftZip([...entries, { name: 'delta-manifest.json', data: deltaManifest(agent) }]);
const memory = (...lines: string[]) => ({ name: 'memory/delta.jsonl', data: `${lines.join('\n')}\n` });
const rawFile = (name: string) => ({ name: `raw/openclaw/${name}`, data: 'x' });

interface Case { name: string; body: () => Uint8Array; message: RegExp; snapshot?: boolean }

const CASES: Case[] = [
  { name: 'a record nested 65 deep', body: () => delta(memory(lineWith(1, { deep: nested(64) }))), message: /nested deeper than 64 levels/ },
  { name: 'a record nested 1,000 deep', body: () => delta(memory(lineWith(1, { deep: nested(1000) }))), message: /nested deeper than 64 levels/ },
  { name: 'a record nested 10,000 deep', body: () => delta(memory(lineWith(1, { deep: nested(10_000) }))), message: /nested deeper than 64 levels/ },
  {
    name: 'a deep record in a snapshot', snapshot: true, message: /record 1 is JSON nested deeper than 64/,
    body: () => craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${lineWith(1, { deep: nested(200) }).replace('"operation":"create",', '')}\n` }, { name: 'manifest.json', data: snapshotManifest(agent) }]),
  },
  { name: 'a deep manifest', body: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest(agent).replace('"changes":{}', `"changes":{},"x":${nested(100)}`) }]), message: /delta-manifest\.json is JSON nested deeper/ },
  { name: 'a path segment over 255 bytes', body: () => delta(rawFile(`${'a'.repeat(253)}.md`)), message: /segment of 256 bytes/ },
  { name: 'a multi-byte path segment over 255 bytes', body: () => delta(rawFile(`memory/${'é'.repeat(128)}`)), message: /segment of 256 bytes/ },
  { name: 'a path both a file and a directory', body: () => delta(rawFile('x.md'), rawFile('x.md/y.md')), message: /"x\.md" is both a file and a directory/ },
  { name: 'a directory over a stored file', body: () => delta(rawFile('MEMORY.md/y.md')), message: /"MEMORY\.md" is both a file and a directory/ },
  { name: 'a file over a stored directory', body: () => delta(rawFile('memory')), message: /"memory" is both a file and a directory/ },
  { name: 'two paths equal under NFC', body: () => delta(rawFile('caf\u00e9.md'), rawFile('cafe\u0301.md')), message: /same name under Unicode NFC/ },
  { name: 'a year -1 timestamp', body: () => delta(memory(lineWith(1, {}, { temporal: { created_at: '-000001-01-01T00:00:00Z' } }))), message: /temporal\.created_at "-000001-01-01T00:00:00Z" is not an RFC 3339/ },
  { name: 'a year 10000 timestamp', body: () => delta(memory(lineWith(1, {}, { temporal: { created_at: '2026-01-01T00:00:00Z', updated_at: '+010000-01-01T00:00:00Z' } }))), message: /temporal\.updated_at/ },
  { name: 'a timestamp that is not a time', body: () => delta(memory(lineWith(1, {}, { temporal: { created_at: '2026-02-30T00:00:00Z' } }))), message: /RFC 3339/ },
  { name: 'a non-UUID record id', body: () => delta(memory(lineWith(1, {}, { id: 'note-1' }))), message: /record id "note-1" is not a UUID/ },
  { name: 'a NUL character in a memory (PostgreSQL text cannot hold it)', body: () => delta(memory(lineWith(1, {}, { content: 'a\u0000b' }))), message: /entry 1: content holds a NUL character \(U\+0000\)/ },
  {
    name: 'a NUL character in a snapshot record\'s tag', snapshot: true, message: /record 1: tags\[0\] holds a NUL character/,
    body: () => craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${JSON.stringify({ ...record(agent, 1), tags: ['a\u0000'] })}\n` }, { name: 'manifest.json', data: snapshotManifest(agent) }]),
  },
  {
    name: 'a non-UUID record id in a snapshot', snapshot: true, message: /record id "r1" is not a UUID/,
    body: () => craftZip([{ name: 'memory/2026-Q1.jsonl', data: `${JSON.stringify({ ...record(agent, 1), id: 'r1' })}\n` }, { name: 'manifest.json', data: snapshotManifest(agent) }]),
  },
];

beforeAll(async () => {
  t = await startTestServer();
  agent = randomUUID();
  await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'target', source_runtime: 'openclaw' }) });
  expect((await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  expect((await call(`${t.url}/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(agent, 0, 1) })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

describe('uploads the service could not serve later', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: 400, nothing written', async (_name, c) => {
    const before = stateFingerprint(t.dataDir);
    const reply = await call(`${t.url}${c.snapshot ? `/agents/${agent}/snapshot` : `/agents/${agent}/deltas?base_sequence=1`}`, {
      method: c.snapshot ? 'PUT' : 'POST', key: t.keyA, contentType: OCTET, body: c.body(),
    });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.error).toMatch(c.message);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it('the same shapes within the limits are accepted', async () => {
    const ok = delta(memory(lineWith(7, { deep: nested(63) }, { temporal: { created_at: '0000-01-01T00:00:00.123456789+05:30' } })),
      rawFile(`${'a'.repeat(252)}.md`), rawFile('caf\u00e9.md'), rawFile('memory/sub/x.md'));
    const reply = await call(`${t.url}/agents/${agent}/deltas?base_sequence=1`, { method: 'POST', key: t.keyA, contentType: OCTET, body: ok });
    expect(reply.status, reply.text).toBe(201);
    const before = stateFingerprint(t.dataDir);
    const decomposed = craftZip([rawFile('cafe\u0301.md'), { name: 'delta-manifest.json', data: deltaManifest(agent).replace('"base_sequence":1', '"base_sequence":2') }]);
    const clash = await call(`${t.url}/agents/${agent}/deltas?base_sequence=2`, { method: 'POST', key: t.keyA, contentType: OCTET, body: decomposed });
    expect(clash.status, clash.text).toBe(400);
    expect(clash.json.error).toMatch(/"caf\u00e9\.md" and "cafe\u0301\.md" are the same name under Unicode NFC/);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });
});
