/**
 * A record id is a UUID whose text form is lowercase hyphenated (CONTRACT §4.1 `id` (uuid); §4.2
 * "UUID text form: lowercase hyphenated."). The reference reader's `Uuid` also takes upper case,
 * `urn:uuid:`, braces and 32 hex digits, and compares values; a ledger keys records by the id's text
 * (the history index's lineages, search, restore's fold), so one UUID in two forms would be two
 * records there: `…aa` and `…AA` in one snapshot, a delta updating or deleting a head record by
 * another form of its id (a second lineage, the head's record left as it was), a delta creating, in
 * another form, an id the head already has. Ingest refuses every id not in the lowercase hyphenated
 * form, naming the record and the id: 400, nothing written. Our own client writes only that form.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { record } from './archives';
import { call, startTestServer, stateFingerprint, type TestServer } from './harness';

const OCTET = 'application/octet-stream';
let t: TestServer;
let agent: string;
/** The head's record, its id holding hex letters (so that upper case is another text). */
const ID = '0190a000-0000-7000-8000-0000000000aa';
const FORMS = [ID.toUpperCase(), `urn:uuid:${ID}`, `{${ID}}`, ID.replaceAll('-', '')];

const line = (id: string, content: string, operation?: string) =>
  JSON.stringify({ ...(operation === undefined ? {} : { operation }), ...record(agent, 0xaa, content), id });
const snapshot = (...lines: string[]) => craftZip([
  { name: 'memory/2026-Q1.jsonl', data: `${lines.join('\n')}\n` },
  {
    name: 'manifest.json', data: JSON.stringify({
      alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id: agent, name: 'n', source_runtime: 'openclaw' },
      layers: { memory: { record_count: lines.length, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: lines.length, sealed: false }] } },
    }),
  },
]);
const delta = (base: number, ...lines: string[]) => craftZip([
  { name: 'memory/delta.jsonl', data: `${lines.join('\n')}\n` },
  {
    name: 'delta-manifest.json', data: JSON.stringify({
      alf_version: '1.0.0', created_at: '2026-05-02T00:00:00Z', agent: { id: agent, source_runtime: 'openclaw' },
      sync: { base_sequence: base, new_sequence: 0 }, changes: { memory: { file: 'memory/delta.jsonl', record_count: lines.length } },
    }),
  },
]);
const put = (body: Uint8Array) => call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body });
const latest = async (): Promise<number> => (await call(`${t.url}/agents/${agent}`, { key: t.keyA })).json.latest_sequence as number;
const post = (base: number, body: Uint8Array) => call(`${t.url}/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key: t.keyA, contentType: OCTET, body });
const refusal = (where: string, id: string) =>
  `${where}: record id ${JSON.stringify(id)} is not in the lowercase hyphenated form 8-4-4-4-12 (CONTRACT §4.2)`;

beforeAll(async () => {
  t = await startTestServer();
  agent = randomUUID();
  await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'ids', source_runtime: 'openclaw' }) });
  expect((await put(snapshot(line(ID, 'first')))).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

describe('record ids in another form than lowercase hyphenated', () => {
  it('a snapshot holding one UUID as …aa and …AA: 400 naming the second record, nothing written', async () => {
    const before = stateFingerprint(t.dataDir);
    const reply = await put(snapshot(line(ID, 'first'), line(ID.toUpperCase(), 'second')));
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.error).toContain(refusal('record 2', ID.toUpperCase()));
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it.each(FORMS)('a delta updating, deleting or creating the head\'s record as %s: 400 naming the entry, nothing written', async (form) => {
    for (const operation of ['update', 'delete', 'create']) {
      const before = stateFingerprint(t.dataDir);
      const seq = await latest();
      const reply = await post(seq, delta(seq, line(form, `${operation}d`, operation)));
      expect(reply.status, `${operation}: ${reply.text}`).toBe(400);
      expect(reply.json.error).toContain(refusal('memory/delta.jsonl entry 1', form));
      expect(stateFingerprint(t.dataDir)).toEqual(before);
    }
  });

  it('a new record created with an upper-case id: 400, nothing written', async () => {
    const before = stateFingerprint(t.dataDir);
    const upper = '0190a000-0000-7000-8000-0000000000AB';
    const seq = await latest();
    const reply = await post(seq, delta(seq, line(ID, 'kept', 'update'), line(upper, 'new', 'create')));
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.error).toContain(refusal('memory/delta.jsonl entry 2', upper));
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it('the same update by the lowercase id is taken: one record, its content changed', async () => {
    const seq = await latest();
    expect(seq).toBe(0);
    expect((await post(seq, delta(seq, line(ID, 'changed', 'update')))).status).toBe(201);
    const restore = await call(`${t.url}/agents/${agent}/restore`, { key: t.keyA });
    expect(restore.status, restore.text).toBe(200);
    expect(restore.json.deltas).toHaveLength(1);
  });
});
