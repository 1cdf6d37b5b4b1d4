/**
 * A snapshot whose fold may be deferred (a local sync's: `deferIndexFrom`) is checked as its records
 * are read, none kept (ingest.ts `checkedSnapshot`); any other is read whole, then checked. Both
 * must give the same verdict: for archives with one fault, and for archives with two, where the
 * first refusal is the one the whole read and the checks after it meet first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { craftZip, type CraftedEntry } from '@/lib/core/archive/testing/craft-zip';
import { blobFiles, countRows, tempLedger } from '@/lib/history/testing/temp-ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { listEntries, registerAgent } from './index';

const AGENT = '7b0f3c2e-3333-4a2b-8c3d-0000000000a1';
const OTHER = '7b0f3c2e-3333-4a2b-8c3d-0000000000ff';
const NOW = new Date('2026-03-01T00:00:00Z');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const record = (n: number, fields: Record<string, unknown> = {}) => ({
  id: `0190a000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`,
  agent_id: AGENT, content: `fact number ${n}`, memory_type: 'semantic',
  source: { runtime: 'openclaw', origin: 'memory_md', origin_file: 'MEMORY.md' },
  temporal: { created_at: '2026-01-15T10:00:00Z' }, status: 'active', namespace: 'curated', ...fields,
});
const line = (n: number, fields: Record<string, unknown> = {}) => JSON.stringify(record(n, fields));
const nested = (depth: number): unknown => (depth <= 1 ? {} : [nested(depth - 1)]);
const manifest = (extra: Record<string, unknown> = {}, agent = AGENT) => JSON.stringify({
  alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id: agent, name: 'n', source_runtime: 'openclaw' }, layers: {}, ...extra,
});
const snapshot = (lines: string[], more: { manifest?: string; entries?: CraftedEntry[]; file?: string } = {}) => craftZip([
  { name: more.file ?? 'memory/2026-Q1.jsonl', data: `${lines.join('\n')}\n` },
  ...(more.entries ?? []),
  { name: 'manifest.json', data: more.manifest ?? manifest() },
]);
const good = (from: number, count: number) => Array.from({ length: count }, (_, i) => line(from + i));

/** Each: an archive and the refusal both readings must give (the first fault in the whole read's order). */
const CASES: { name: string; bytes: () => Uint8Array; message: RegExp }[] = [
  { name: 'a NUL in a record', bytes: () => snapshot([...good(1, 5), line(6, { content: 'a\u0000b' }), ...good(7, 5)]), message: /record 6: content holds a NUL/ },
  { name: 'a non-UUID id, then a deep record', bytes: () => snapshot([line(1, { id: 'r1' }), line(2, { deep: nested(80) })]), message: /record 1: record id "r1" is not a UUID/ },
  { name: 'a NUL in record 1, and line 3 not JSON', bytes: () => snapshot([line(1, { content: '\u0000' }), line(2), '{"id":']), message: /line 3: not valid JSON/ },
  { name: 'a NUL in record 1, and a duplicate id on line 4', bytes: () => snapshot([line(1, { content: '\u0000' }), line(2), line(3), line(2)]), message: /appears twice: memory\/2026-Q1\.jsonl line 2 and memory\/2026-Q1\.jsonl line 4/ },
  { name: 'a NUL in record 1, and a record on line 2 without content', bytes: () => snapshot([line(1, { content: '\u0000' }), JSON.stringify({ ...record(2), content: undefined })]), message: /line 2: .*content/ },
  { name: 'a NUL in record 2, and a manifest nested too deep', bytes: () => snapshot([line(1), line(2, { content: '\u0000' })], { manifest: manifest({ x: nested(100) }) }), message: /manifest\.json is JSON nested deeper/ },
  { name: 'a NUL in record 2, and another agent\'s manifest', bytes: () => snapshot([line(1), line(2, { content: '\u0000' })], { manifest: manifest({}, OTHER) }), message: /agent\.id .* does not match/ },
  { name: 'a time that is not one in record 1, and a raw path segment over 255 bytes', bytes: () => snapshot([line(1, { temporal: { created_at: '2026-02-30T00:00:00Z' } })], { entries: [{ name: `raw/openclaw/${'a'.repeat(256)}`, data: 'x' }] }), message: /record 1: temporal\.created_at/ },
  { name: 'a raw path segment over 255 bytes alone', bytes: () => snapshot(good(1, 3), { entries: [{ name: `raw/openclaw/${'a'.repeat(256)}`, data: 'x' }] }), message: /segment of 256 bytes/ },
  { name: 'a NUL in a tag of record 3, the others clean', bytes: () => snapshot([...good(1, 2), line(3, { tags: ['a', 'b\u0000'] }), ...good(4, 2)]), message: /record 3: tags\[1\] holds a NUL/ },
  { name: 'a NUL in an object key of record 2', bytes: () => snapshot([line(1), line(2, { metadata: { 'k\u0000': 'v' } })]), message: /record 2: .*holds a NUL/ },
  { name: 'a NUL after the text of a backslash and u0000 in record 1', bytes: () => snapshot([line(1, { content: '\\u0000 and \u0000' })]), message: /record 1: content holds a NUL/ },
  { name: 'a known key twice in record 3 (escaped), a NUL in record 4', bytes: () => snapshot([...good(1, 2), line(3).replace('{', '{"\\u0063ontent":"x",'), line(4, { content: '\u0000' })]), message: /record 3: key "content" appears twice.*the record's id 0190a000-0000-7000-8000-000000000003/ },
  { name: 'a NUL in record 1, and a known key twice in source of record 2', bytes: () => snapshot([line(1, { content: '\u0000' }), line(2).replace('"source":{', '"source":{"origin":"x",')]), message: /record 1: content holds a NUL/ },
  { name: 'a known key twice in the manifest, and in record 1', bytes: () => snapshot([line(1).replace('{', '{"id":"x",')], { manifest: manifest().replace('{', '{"created_at":"x",') }), message: /manifest\.json: key "created_at" appears twice/ },
  { name: 'a NUL in record 1, and invalid UTF-8 later in the partition', bytes: () => craftZip([{ name: 'memory/2026-Q1.jsonl', data: Buffer.concat([Buffer.from(`${line(1, { content: '\u0000' })}\n${line(2)}\n`), Buffer.from([0xff, 0x0a])]) }, { name: 'manifest.json', data: manifest() }]), message: /not valid UTF-8/ },
];

function ledgerWithAgent() {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  registerAgent({ ledger: t.ledger, id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: NOW });
  return t;
}

async function refusal(deferIndexFrom: number | undefined, bytes: Uint8Array): Promise<{ code: string; message: string; unchanged: boolean }> {
  const t = ledgerWithAgent();
  const before = { rows: countRows(t.ledger), blobs: blobFiles(t.dir) };
  const error = await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now: NOW, deferIndexFrom }).then(() => null, (e: { code: string; message: string }) => e);
  if (error === null) throw new Error('accepted');
  return { code: error.code, message: error.message, unchanged: JSON.stringify({ rows: countRows(t.ledger), blobs: blobFiles(t.dir) }) === JSON.stringify(before) };
}

describe('a snapshot checked as it is read (its fold deferred) and one read whole', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: the same refusal, nothing written', async (_name, c) => {
    const bytes = c.bytes();
    const whole = await refusal(undefined, bytes);
    const scanned = await refusal(1, bytes);
    expect(whole.message).toMatch(c.message);
    expect(scanned).toEqual(whole);
    expect(scanned.unchanged).toBe(true);
  });

  it('a good snapshot is accepted either way: deferred when large enough, indexed at once when not', async () => {
    // Record 20's content is the six characters of a written-out escape, which is no NUL.
    const bytes = snapshot([...good(1, 19), line(20, { content: '\\u0000 is how JSON writes a NUL' })]);
    for (const [from, deferred] of [[1, true], [21, false]] as const) {
      const t = ledgerWithAgent();
      const result = await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now: NOW, deferIndexFrom: from });
      expect(result.sequence).toBe(0);
      expect(result.indexDeferred ?? false).toBe(deferred);
      expect(listEntries({ ledger: t.ledger, agentId: AGENT })).toHaveLength(1);
    }
  });
});

describe('a refused record is named by what it says of its source, not by its place in the archive alone', () => {
  const ID = '0190a000-0000-7000-8000-000000000001';
  const NUL_CONTENT = 'record 1: content holds a NUL character (U+0000), which a memory may not contain';
  const CASES: { name: string; fields: Record<string, unknown>; message: string }[] = [
    {
      name: 'an OpenClaw section: its file and lines',
      fields: { content: 'a\u0000b', source: { runtime: 'openclaw', origin: 'workspace', origin_file: 'memory/notes.md' }, raw_source_format: { heading: 'B', line_start: 3, line_end: 4 } },
      message: `${NUL_CONTENT} (the record's id ${ID}, file "memory/notes.md" lines 3-4)`,
    },
    {
      name: 'a ZeroClaw memory: its key',
      fields: { content: 'a\u0000b', source: { runtime: 'zeroclaw', origin: 'sqlite' }, raw_source_format: { id: 'm2', key: 'deploy "target"' } },
      message: `${NUL_CONTENT} (the record's id ${ID}, key "deploy \\"target\\"")`,
    },
    {
      name: 'a Hermes session: its id',
      fields: { content: 'a\u0000b', source: { runtime: 'hermes', origin: 'session' }, raw_source_format: { session: { id: 'sess-7' }, messages: [] } },
      message: `${NUL_CONTENT} (the record's id ${ID}, session "sess-7")`,
    },
    {
      name: 'an id that is no UUID is not repeated as one',
      fields: { id: 'r1', source: { runtime: 'zeroclaw' }, raw_source_format: { key: 'k' } },
      message: 'record 1: record id "r1" is not a UUID (the record\'s key "k")',
    },
    {
      name: 'a file name with a NUL, escaped, and a long one cut at 200 characters',
      fields: { source: { runtime: 'openclaw', origin_file: `${'n'.repeat(300)}\u0000.md` }, temporal: { created_at: 'yesterday' } },
      message: `record 1: source.origin_file holds a NUL character (U+0000), which a memory may not contain (the record's id ${ID}, file "${'n'.repeat(200)}…")`,
    },
    {
      name: 'a record too deep: its source still said',
      fields: { deep: nested(80), raw_source_format: { line_start: 1, line_end: 2 } },
      message: `record 1 is JSON nested deeper than 64 levels (the record's id ${ID}, file "MEMORY.md" lines 1-2)`,
    },
    { name: 'a record that says nothing of its source', fields: { id: 'r7', source: { runtime: 'openclaw' }, raw_source_format: undefined }, message: 'record 1: record id "r7" is not a UUID' },
  ];
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const bytes = snapshot([line(1, c.fields)]);
    for (const from of [undefined, 1]) expect((await refusal(from, bytes)).message).toBe(`refused: ${c.message}`);
  });
});
