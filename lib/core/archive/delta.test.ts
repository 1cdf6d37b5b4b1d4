import { describe, expect, it } from 'vitest';
import { inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { deltaManifestName, isDeltaArchive, readDelta, readSnapshot, writeDelta, writeSnapshot } from './index';
import { craftZip } from './testing/craft-zip';
import { makeDelta, makeRecord, makeSnapshot, syntheticAgentBytes } from './testing/fixtures';
import type { JsonObject } from '../json';

async function entries(bytes: Uint8Array): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const out = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
  }
  return out;
}

describe('.alf-delta round trip', () => {
  const created = makeRecord(1, {}, { x_unknown: { a: [1] } });
  const updated = makeRecord(2, { updated_at: '2026-02-01T00:00:00+02:00' });
  const deleted = makeRecord(3);

  it('writes the reference entry order with the operation key first and a consistent manifest', async () => {
    const delta = makeDelta({
      entries: [
        { operation: 'create', record: created },
        { operation: 'update', record: updated },
        { operation: 'delete', record: deleted },
      ],
      layers: { principals: { principals: [] }, credentials: { credentials: [] }, identity: { version: 2 } },
      rawChanged: new Map([['raw/openclaw/b.md', Buffer.from('B')], ['raw/openclaw/a.md', Buffer.from([0xff, 0x00])]]),
      rawDeleted: ['raw/openclaw/old.md'],
    });
    delta.manifest.x_unknown = true;
    const bytes = await writeDelta(delta);
    const files = await entries(bytes);
    expect([...files.keys()]).toEqual([
      'memory/delta.jsonl', 'credentials.json', 'identity.json', 'principals.json',
      'raw/openclaw/a.md', 'raw/openclaw/b.md', 'delta-manifest.json',
    ]);
    const lines = files.get('memory/delta.jsonl')!.split('\n');
    expect(lines[0]!.startsWith('{"operation":"create","id":')).toBe(true);
    expect(lines[2]!.startsWith('{"operation":"delete","id":')).toBe(true);
    expect(lines).toHaveLength(4);
    const manifest = JSON.parse(files.get('delta-manifest.json')!);
    expect(manifest.x_unknown).toBe(true);
    expect(manifest.changes).toEqual({
      credentials: { file: 'credentials.json' },
      identity: { file: 'identity.json', new_version: 2 },
      principals: { file: 'principals.json' },
      memory: { file: 'memory/delta.jsonl', record_count: 3 },
      raw: { changed: ['raw/openclaw/a.md', 'raw/openclaw/b.md'], deleted: ['raw/openclaw/old.md'] },
    });

    expect(await isDeltaArchive(bytes)).toBe(true);
    const back = await readDelta(bytes);
    expect(back.entries).toEqual(delta.entries);
    expect(back.layers).toEqual(delta.layers);
    expect(back.rawChanged).toEqual(new Map([['raw/openclaw/a.md', new Uint8Array([0xff, 0x00])], ['raw/openclaw/b.md', new Uint8Array(Buffer.from('B'))]]));
    expect(back.rawDeleted).toEqual(['raw/openclaw/old.md']);
    expect(Buffer.from(await writeDelta(back)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('omits memory and raw changes when there are none', async () => {
    const delta = makeDelta({ layers: { identity: { version: 3 } } });
    delta.manifest.changes = { memory: { file: 'memory/delta.jsonl', record_count: 9 }, raw: { changed: ['raw/x/y'] } };
    const files = await entries(await writeDelta(delta));
    expect([...files.keys()]).toEqual(['identity.json', 'delta-manifest.json']);
    expect(JSON.parse(files.get('delta-manifest.json')!).changes).toEqual({ identity: { file: 'identity.json', new_version: 3 } });
  });

  it('names the identity\'s version as changes.identity.new_version (CONTRACT §3.2) only when it is a u32', async () => {
    const changesOf = async (identity: JsonObject, prior: JsonObject = {}) => {
      const delta = makeDelta({ layers: { identity } });
      delta.manifest.changes = prior;
      return JSON.parse((await entries(await writeDelta(delta))).get('delta-manifest.json')!).changes;
    };
    expect(await changesOf({ version: 7 })).toEqual({ identity: { file: 'identity.json', new_version: 7 } });
    expect(await changesOf({ version: 0 })).toEqual({ identity: { file: 'identity.json', new_version: 0 } });
    expect(await changesOf({ version: '7' })).toEqual({ identity: { file: 'identity.json' } });
    expect(await changesOf({ version: 2 ** 32 })).toEqual({ identity: { file: 'identity.json' } });
    expect(await changesOf({ version: 1.5 }, { identity: { new_version: 1 } })).toEqual({ identity: { new_version: 1, file: 'identity.json' } });
  });

  it('skips lines with an unknown operation and strips the operation key', async () => {
    const body = [
      JSON.stringify({ operation: 'create', ...created }),
      JSON.stringify({ operation: 'merge', ...updated }),
      JSON.stringify({ ...deleted, operation: 'delete' }),
      '',
    ].join('\n');
    const bytes = craftZip([
      { name: 'memory/delta.jsonl', data: body },
      { name: 'delta-manifest.json', data: JSON.stringify(makeDelta().manifest) },
    ]);
    const delta = await readDelta(bytes);
    expect(delta.entries).toEqual([{ operation: 'create', record: created }, { operation: 'delete', record: deleted }]);
  });

  it('accepts a manifest.json carrying sync.base_sequence as the delta manifest', async () => {
    const bytes = craftZip([{ name: 'manifest.json', data: JSON.stringify(makeDelta().manifest) }]);
    const delta = await readDelta(bytes);
    expect(delta.manifest.sync).toEqual({ base_sequence: 3, new_sequence: 0 });
    expect(await isDeltaArchive(bytes)).toBe(false);
    // What is said of its manifest names the member the archive holds.
    expect(delta.manifestFile).toBe('manifest.json');
    expect(deltaManifestName(delta)).toBe('manifest.json');
    expect(deltaManifestName(await readDelta(await writeDelta(makeDelta())))).toBe('delta-manifest.json');
    expect(deltaManifestName(makeDelta())).toBe('delta-manifest.json');
  });

  it('names the manifest.json a delta manifest was read from when refusing it', async () => {
    const manifest = { ...makeDelta().manifest, changes: { raw: { deleted: 'raw/openclaw/a.md' } } };
    await expect(readDelta(craftZip([{ name: 'manifest.json', data: JSON.stringify(manifest) }])))
      .rejects.toMatchObject({ message: 'manifest.json: changes.raw.deleted is not an array' });
    await expect(readDelta(craftZip([{ name: 'delta-manifest.json', data: JSON.stringify(manifest) }])))
      .rejects.toMatchObject({ message: 'delta-manifest.json: changes.raw.deleted is not an array' });
  });

  it('refuses a snapshot as a delta and tells snapshots from deltas', async () => {
    const snapshot = await writeSnapshot(makeSnapshot([makeRecord(1)]));
    expect(await isDeltaArchive(snapshot)).toBe(false);
    expect(await isDeltaArchive(syntheticAgentBytes())).toBe(false);
    await expect(readDelta(snapshot)).rejects.toMatchObject({ code: 'missing_manifest' });
    await expect(readSnapshot(await writeDelta(makeDelta()))).rejects.toMatchObject({
      code: 'missing_manifest',
      message: expect.stringContaining('.alf-delta'),
    });
  });

  it('rejects the same record id twice in one delta, when reading and when writing', async () => {
    const line = JSON.stringify({ operation: 'update', ...updated });
    const bytes = craftZip([
      { name: 'memory/delta.jsonl', data: `${line}\n${line}\n` },
      { name: 'delta-manifest.json', data: JSON.stringify(makeDelta().manifest) },
    ]);
    await expect(readDelta(bytes)).rejects.toMatchObject({ code: 'duplicate_record_id', message: expect.stringContaining('line 2') });
    const twice = makeDelta({ entries: [{ operation: 'update', record: updated }, { operation: 'delete', record: updated }] });
    await expect(writeDelta(twice)).rejects.toMatchObject({ code: 'duplicate_record_id' });
  });

  it('deflates every entry, small and large, as the reference does, all with the fixed timestamp', async () => {
    const big = { ...created, content: `${created.content}\n${'memory text '.repeat(3000)}` };
    for (const record of [big, created]) {
      const bytes = Buffer.from(await writeDelta(makeDelta({ entries: [{ operation: 'create', record }] })));
      // First local header: method at offset 8 (8 = Deflate), DOS time/date at 10/12 (2000-01-01 00:00 = time 0, date 0x2821).
      expect(bytes.readUInt16LE(8)).toBe(8);
      expect(bytes.readUInt16LE(10)).toBe(0);
      expect(bytes.readUInt16LE(12)).toBe(0x2821);
      const start = 30 + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
      expect(inflateRawSync(bytes.subarray(start, start + bytes.readUInt32LE(18))).toString('utf8').startsWith('{"operation":"create"')).toBe(true);
    }
  });
});
