import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { isJsonObject, type JsonObject } from '../json';
import { ArchiveError, readSnapshot, readSnapshotLines, writeSnapshot } from './index';
import { lineOnlyRecord } from './write-snapshot';
import { prng } from '../prng';
import { craftZip } from './testing/craft-zip';
import { makeRecord, makeSnapshot, syntheticAgentBytes } from './testing/fixtures';

/** Entry names in archive order, straight from the central directory. */
async function entryNames(bytes: Uint8Array): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const names: string[] = [];
  for await (const entry of zip.eachEntry()) names.push(entry.fileName);
  return names;
}

/** Each entry's compression method (0 stored, 8 Deflate), by name. */
async function methods(bytes: Uint8Array): Promise<Record<string, number>> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const out: Record<string, number> = {};
  for await (const entry of zip.eachEntry()) out[entry.fileName] = entry.compressionMethod;
  return out;
}

function memoryLayer(manifest: JsonObject): JsonObject {
  const layers = manifest.layers;
  if (!isJsonObject(layers) || !isJsonObject(layers.memory)) throw new Error('no layers.memory');
  return layers.memory;
}

describe('readSnapshot on the synthetic reference fixture', () => {
  it('finds the partition through the manifest and sorts every other entry', async () => {
    const snapshot = await readSnapshot(syntheticAgentBytes());
    expect(snapshot.records).toHaveLength(10);
    expect(snapshot.records[0]?.id).toBe('7b6a8bc7-f454-7814-b2c0-c54ef62ab46b');
    expect(Object.keys(snapshot.layers).sort()).toEqual(['attachments', 'credentials', 'identity', 'principals']);
    expect([...snapshot.raw.keys()]).toEqual(['raw/openclaw/.keep']);
    expect([...snapshot.extra.keys()].sort()).toEqual(['artifacts/.keep', 'memory/index.json']);
    expect(snapshot.manifest.checksum).toBe('m7xycy773rci06hty4as6dxtbw:748');
  });

  it('round-trips records, layers and extra, and writes identical bytes twice', async () => {
    const first = await readSnapshot(syntheticAgentBytes());
    const written = await writeSnapshot(first);
    const again = await writeSnapshot(first);
    expect(Buffer.from(again).equals(Buffer.from(written))).toBe(true);
    const second = await readSnapshot(written);
    const byId = (records: typeof first.records) => [...records].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(second.records)).toEqual(byId(first.records));
    expect(second.layers).toEqual(first.layers);
    expect(second.raw).toEqual(first.raw);
    first.extra.delete('memory/index.json');
    expect(second.extra).toEqual(first.extra);
    expect(second.manifest.runtime_hints).toEqual(first.manifest.runtime_hints);
    expect(Buffer.from(await writeSnapshot(second)).equals(Buffer.from(written))).toBe(true);
  });
});

describe('writeSnapshot', () => {
  it('keeps unknown keys at every level of records and manifest', async () => {
    const record = makeRecord(1, { future_clock: 'x' }, {
      x_unknown: { nested: [1, { deep: true }] },
      source: { runtime: 'openclaw', x_source_extra: 7 },
    });
    const snapshot = makeSnapshot([record]);
    snapshot.manifest.x_top = { keep: 'me' };
    snapshot.manifest.layers = { x_layer: { a: 1 } };
    const back = await readSnapshot(await writeSnapshot(snapshot));
    expect(back.records).toEqual([record]);
    expect(back.manifest.x_top).toEqual({ keep: 'me' });
    expect((back.manifest.layers as JsonObject).x_layer).toEqual({ a: 1 });
  });

  it('partitions by quarter of observed_at, else created_at, in UTC, keeping input order', async () => {
    const records = [
      makeRecord(1, { created_at: '2026-05-01T00:00:00Z' }),
      makeRecord(2, { created_at: '2026-05-01T00:00:00Z', observed_at: '2025-12-31T23:30:00Z' }),
      makeRecord(3, { created_at: '2026-03-31T23:00:00-05:00' }),
      makeRecord(4, { created_at: '2026-02-01T00:00:00+00:00', observed_at: null }),
      makeRecord(5, { created_at: '2026-04-02T00:00:00.123456789Z' }),
    ];
    const bytes = await writeSnapshot(makeSnapshot(records));
    const memory = memoryLayer((await readSnapshot(bytes)).manifest);
    expect(memory.partitions).toEqual([
      { file: 'memory/2025-Q4.jsonl', from: '2025-10-01', to: '2025-12-31', record_count: 1, sealed: false },
      { file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 1, sealed: false },
      { file: 'memory/2026-Q2.jsonl', from: '2026-04-01', to: '2026-06-30', record_count: 3, sealed: false },
    ]);
    const back = await readSnapshot(bytes);
    expect(back.records.map((r) => r.id)).toEqual([records[1], records[3], records[0], records[2], records[4]].map((r) => r!.id));
  });

  it('recomputes the inventory, writes the manifest last and lists raw sources', async () => {
    const snapshot = makeSnapshot([makeRecord(1), makeRecord(2, {}, { embeddings: [{ model: 'm', dimensions: 1, vector: [0.5], computed_at: '2026-01-01T00:00:00Z', source: 'runtime' }] })], {
      'raw/openclaw/MEMORY.md': '# Memory\n',
      'raw/hermes/SOUL.md': 'soul',
    });
    snapshot.layers.principals = { principals: [{ id: 'a' }, { id: 'b' }] };
    snapshot.layers.identity = { version: 4, name: 'x' };
    snapshot.manifest.layers = { principals: { count: 99, file: 'old.json', x_keep: true }, credentials: { count: 5, file: 'credentials.json' } };
    snapshot.extra.set('memory/index.json', Buffer.from('{}'));
    snapshot.extra.set('memory/partitions/2020-Q1.jsonl', Buffer.from(''));
    snapshot.extra.set('artifacts/a.txt', Buffer.from('A'));
    const bytes = await writeSnapshot(snapshot, { today: '2026-04-01' });
    expect(await entryNames(bytes)).toEqual([
      'identity.json', 'principals.json', 'memory/2026-Q1.jsonl', 'artifacts/a.txt',
      'raw/hermes/SOUL.md', 'raw/openclaw/MEMORY.md', 'manifest.json',
    ]);
    const manifest = (await readSnapshot(bytes)).manifest;
    expect(manifest.raw_sources).toEqual(['hermes', 'openclaw']);
    expect(manifest.layers).toEqual({
      principals: { count: 2, file: 'principals.json', x_keep: true },
      identity: { version: 4, file: 'identity.json' },
      memory: {
        record_count: 2, index_file: 'memory/index.json', has_embeddings: true, has_raw_source: true,
        partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: 2, sealed: true }],
      },
    });
  });

  it('omits layers.memory when empty; raw_sources keeps what the manifest declares (as the reference adapters write it), omitted only when nothing is', async () => {
    const snapshot = makeSnapshot([]);
    snapshot.manifest.raw_sources = ['openclaw'];
    const manifest = (await readSnapshot(await writeSnapshot(snapshot))).manifest;
    expect(manifest.layers).toEqual({});
    expect(manifest.raw_sources).toEqual(['openclaw']);
    delete snapshot.manifest.raw_sources;
    expect('raw_sources' in (await readSnapshot(await writeSnapshot(snapshot))).manifest).toBe(false);
    const withRaw = makeSnapshot([], { 'raw/zeroclaw/a.md': 'a' });
    withRaw.manifest.raw_sources = ['openclaw'];
    expect((await readSnapshot(await writeSnapshot(withRaw))).manifest.raw_sources).toEqual(['zeroclaw', 'openclaw']);
  });

  it('stores raw files uncompressed when asked (storeRaw), with the same contents', async () => {
    const big = 'workspace line\n'.repeat(4000);
    const snapshot = makeSnapshot(Array.from({ length: 400 }, (_, k) => makeRecord(k)), { 'raw/openclaw/MEMORY.md': big, 'raw/openclaw/small.md': 'x' });
    const deflated = await writeSnapshot(snapshot);
    const stored = await writeSnapshot(snapshot, { storeRaw: true });
    expect(await methods(deflated)).toMatchObject({ 'raw/openclaw/MEMORY.md': 8, 'raw/openclaw/small.md': 8, 'memory/2026-Q1.jsonl': 8, 'manifest.json': 8 });
    expect(await methods(stored)).toMatchObject({ 'raw/openclaw/MEMORY.md': 0, 'raw/openclaw/small.md': 0, 'memory/2026-Q1.jsonl': 8 });
    const [a, b] = await Promise.all([readSnapshot(deflated), readSnapshot(stored)]);
    expect(b.records).toEqual(a.records);
    expect(b.raw).toEqual(a.raw);
    expect(Buffer.from(await writeSnapshot(snapshot, { storeRaw: true })).equals(Buffer.from(stored))).toBe(true);
  });

  it('rejects duplicate record ids and unsafe raw names, writing nothing', async () => {
    await expect(writeSnapshot(makeSnapshot([makeRecord(1), makeRecord(1)]))).rejects.toMatchObject({ code: 'duplicate_record_id' });
    await expect(writeSnapshot(makeSnapshot([], { 'raw/openclaw/../x': 'a' }))).rejects.toBeInstanceOf(ArchiveError);
    await expect(writeSnapshot(makeSnapshot([makeRecord(1, { created_at: '2026-01-01 noon' })]))).rejects.toMatchObject({ code: 'bad_record' });
  });

  it('writes a line-only record as its line, in the partition its timestamps (or its known partition file) decide, and refuses one without its line', async () => {
    const records = [makeRecord(1), makeRecord(2, { created_at: '2026-01-05T00:00:00Z', observed_at: '2026-08-01T00:00:00Z' })];
    const expected = Buffer.from(await writeSnapshot(makeSnapshot(records)));
    const { records: lines } = await readSnapshotLines(expected);
    const order = [0, 1].map((i) => lines.idHint(i));
    const stubs = records.map((r) => lineOnlyRecord(r.id, lines.timestamps(order.indexOf(r.id))));
    const written = await writeSnapshot(makeSnapshot(stubs), { recordLines: records.map((r) => lines.bytesOf(order.indexOf(r.id))) });
    expect(Buffer.from(written).equals(expected)).toBe(true);
    await expect(writeSnapshot(makeSnapshot(stubs))).rejects.toThrow(/line-only record .* came without its line/);
    // Or placed by its partition file, when that is known (one of our own names only).
    const placed = records.map((r) => lineOnlyRecord(r.id, { partition: lines.partitionFile(order.indexOf(r.id)) }));
    expect(Buffer.from(await writeSnapshot(makeSnapshot(placed), { recordLines: records.map((r) => lines.bytesOf(order.indexOf(r.id))) })).equals(expected)).toBe(true);
    const foreign = [lineOnlyRecord(records[0]!.id, { partition: 'memory/partitions/2026-Q1.jsonl' })];
    await expect(writeSnapshot(makeSnapshot(foreign), { recordLines: [lines.bytesOf(order.indexOf(records[0]!.id))] })).rejects.toThrow(/not a partition file of ours/);
  });
});

describe('readSnapshot layouts', () => {
  const manifest = (partitions: unknown[] | undefined) => JSON.stringify({
    alf_version: '1.0.0', created_at: '2026-01-01T00:00:00Z', agent: { id: 'a', name: 'n', source_runtime: 'openclaw' },
    layers: partitions ? { memory: { record_count: 1, index_file: 'memory/index.json', partitions } } : {},
  });
  const line = `${JSON.stringify(makeRecord(1))}\n`;

  it('reads the reference writer layout memory/YYYY-QN.jsonl without memory/index.json', async () => {
    const bytes = craftZip([
      { name: 'memory/2026-Q1.jsonl', data: line },
      { name: 'manifest.json', data: manifest([{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', record_count: 1, sealed: false }]) },
    ]);
    expect((await readSnapshot(bytes)).records).toEqual([makeRecord(1)]);
  });

  it('reads .jsonl files under memory/ when the manifest lists no partitions', async () => {
    const bytes = craftZip([
      { name: 'memory/partitions/2026-Q1.jsonl', data: line },
      { name: 'raw/openclaw/', data: '' },
      { name: 'manifest.json', data: manifest(undefined) },
    ]);
    const snapshot = await readSnapshot(bytes);
    expect(snapshot.records).toEqual([makeRecord(1)]);
    expect(snapshot.raw.size).toBe(0);
  });
});

describe('readSnapshotLines', () => {
  it('holds the same records as readSnapshot, parsed on demand, with the ids our writer puts first', async () => {
    const records = [makeRecord(1), makeRecord(2), makeRecord(3)];
    for (const bytes of [syntheticAgentBytes(), await writeSnapshot(makeSnapshot(records, { 'raw/openclaw/MEMORY.md': '# m\n' }))]) {
      const eager = await readSnapshot(bytes);
      const lazy = await readSnapshotLines(bytes);
      expect(lazy.records.length).toBe(eager.records.length);
      expect(eager.records.map((_, i) => lazy.records.record(i))).toEqual(eager.records);
      expect([lazy.manifest, lazy.layers, lazy.raw, lazy.extra]).toEqual([eager.manifest, eager.layers, eager.raw, eager.extra]);
    }
    const ours = await readSnapshotLines(await writeSnapshot(makeSnapshot(records)));
    expect(records.map((_, i) => ours.records.idHint(i))).toEqual(records.map((r) => r.id));
    records.forEach((r, i) => {
      expect(ours.records.text(i)).toBe(JSON.stringify(r));
      expect(ours.records.equals(i, JSON.stringify(r))).toBe(true);
      expect(ours.records.equals(i, JSON.stringify({ ...r, content: `${r.content}é` }))).toBe(false);
    });
  });

  it('skips the same blank lines as the eager reader, non-ASCII white space included, and keeps line numbers', async () => {
    const line = (n: number) => JSON.stringify(makeRecord(n));
    const bytes = craftZip([
      { name: 'memory/2026-Q1.jsonl', data: `\uFEFF${line(1)}\n  \t\n\u00a0\u3000\n${line(2)}\r\n\n{"id":"x",broken\n` },
      { name: 'manifest.json', data: JSON.stringify({ alf_version: '1.0.0', agent: { id: 'a' }, layers: { memory: { partitions: [{ file: 'memory/2026-Q1.jsonl' }] } } }) },
    ]);
    await expect(readSnapshot(bytes)).rejects.toThrow(/2026-Q1\.jsonl line 6: not valid JSON/);
    const lazy = await readSnapshotLines(bytes);
    expect(lazy.records.length).toBe(3);
    expect([lazy.records.record(0), lazy.records.record(1)]).toEqual([makeRecord(1), makeRecord(2)]);
    expect(lazy.records.idHint(0)).toBe(makeRecord(1).id);
    expect(() => lazy.records.record(2)).toThrow(/2026-Q1\.jsonl line 6: not valid JSON/);
  });

  it('drops a byte order mark before the first line, as the eager reader does', async () => {
    const bytes = craftZip([
      { name: 'memory/2026-Q1.jsonl', data: `\uFEFF${JSON.stringify(makeRecord(1))}\n` },
      { name: 'manifest.json', data: JSON.stringify({ alf_version: '1.0.0', agent: { id: 'a' }, layers: { memory: { partitions: [{ file: 'memory/2026-Q1.jsonl' }] } } }) },
    ]);
    expect((await readSnapshot(bytes)).records).toEqual([makeRecord(1)]);
    expect((await readSnapshotLines(bytes)).records.record(0)).toEqual(makeRecord(1));
  });
});

describe('large members', () => {
  it('reads a partition of more than a megabyte compressed (inflated on the thread pool) like a small one', async () => {
    const rand = prng(3);
    const text = () => Array.from({ length: 400 }, () => String.fromCharCode(33 + Math.floor(rand() * 90))).join('');
    const records = Array.from({ length: 4000 }, (_, k) => ({ ...makeRecord(k + 1), content: text() }));
    const bytes = await writeSnapshot(makeSnapshot(records));
    expect(bytes.byteLength).toBeGreaterThan(1 << 20);
    expect((await readSnapshot(bytes)).records).toEqual(records);
  });
});
