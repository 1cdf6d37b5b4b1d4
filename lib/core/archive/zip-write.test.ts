import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { prng } from '../prng';
import { readZip, resolveLimits } from './zip-read';
import { deflateAhead, LARGE_LEVEL, SMALL_BYTES, StreamedDeflate } from './deflate-ahead';
import { deflateChunkSize, writeZip, writeZipWithYazl, writesThroughYazl, type ZipEntry } from './zip-write';

type DeflateRaw = (buffer: Buffer, options: zlib.ZlibOptions, callback: (error: Error | null, result: Buffer) => void) => void;
const zlibModule = zlib as unknown as { deflateRaw: DeflateRaw };
const original = zlibModule.deflateRaw;

/** JSONL-like text: compressible, as a base's memory partition is. */
function jsonl(bytes: number): Buffer {
  const rand = prng(11);
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = JSON.stringify({ id: `rec-${i}`, content: `fact ${Math.floor(rand() * 1e6)} about topic ${i % 97}`, tags: ['bench'] });
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe('writeZip deflate', () => {
  afterEach(() => {
    zlibModule.deflateRaw = original;
  });

  it('deflates a large member in one output chunk sized to it, and puts zlib back as it was', async () => {
    const calls: zlib.ZlibOptions[] = [];
    const spy: DeflateRaw = (buffer, options, callback) => {
      calls.push(options);
      original(buffer, options, callback);
    };
    zlibModule.deflateRaw = spy;
    const big = jsonl(3 << 20);
    await writeZip([{ name: 'memory/2026-Q2.jsonl', data: big }, { name: 'small.md', data: Buffer.from('# small\n') }]);
    expect(calls).toHaveLength(1); // the small member is deflated by fflate, not zlib
    expect(calls[0]).toMatchObject({ level: 1, chunkSize: deflateChunkSize(big.byteLength) });
    expect(deflateChunkSize(big.byteLength)).toBeGreaterThan(zlib.deflateRawSync(big, { level: 1 }).byteLength);
    expect(zlibModule.deflateRaw).toBe(spy);
  });

  it('writes the same Deflate bytes as zlib with its default chunk, and they read back', async () => {
    const big = jsonl(2 << 20);
    const bytes = Buffer.from(await writeZip([{ name: 'memory/2026-Q2.jsonl', data: big }]));
    const expected = zlib.deflateRawSync(big, { level: 1 });
    expect(bytes.indexOf(expected)).toBeGreaterThan(0);
    expect(bytes.byteLength).toBeLessThan(expected.byteLength + 512);
    const { files } = await readZip(bytes, resolveLimits());
    expect(Buffer.from(files.get('memory/2026-Q2.jsonl')!).equals(big)).toBe(true);
  });

  it('deflates every member, small and empty ones too (as the reference writer does), deterministically', async () => {
    const entries = [{ name: 'small.md', data: Buffer.from('# small\nsmall small small\n') }, { name: 'empty', data: Buffer.alloc(0) }];
    const bytes = Buffer.from(await writeZip(entries));
    expect(bytes.readUInt16LE(8)).toBe(8);
    const { files } = await readZip(bytes, resolveLimits());
    expect(Buffer.from(files.get('small.md')!).equals(entries[0]!.data)).toBe(true);
    expect(files.get('empty')!.byteLength).toBe(0);
    expect(Buffer.from(await writeZip(entries)).equals(bytes)).toBe(true);
    const stored = Buffer.from(await writeZip([{ ...entries[0]!, store: true }]));
    expect(stored.readUInt16LE(8)).toBe(0);
  });

  it('gives every size an output chunk within its bounds', () => {
    expect(deflateChunkSize(0)).toBe(64 << 10);
    expect(deflateChunkSize(16 << 10)).toBe(64 << 10);
    expect(deflateChunkSize(32 << 20)).toBe(8 << 20);
    expect(deflateChunkSize(1 << 30)).toBe(64 << 20);
  });
});

describe('writeZip without yazl', () => {
  /** Random members: names ASCII and not, sizes either side of the small/large line, stored or not, some deflated ahead. */
  function members(seed: number): ZipEntry[] {
    const rand = prng(seed);
    const count = 1 + Math.floor(rand() * 40);
    const out: ZipEntry[] = [];
    for (let i = 0; i < count; i++) {
      const pick = rand();
      const size = pick < 0.1 ? 0 : pick < 0.6 ? Math.floor(rand() * 4000) : pick < 0.8 ? SMALL_BYTES - 2 + Math.floor(rand() * 4) : SMALL_BYTES + Math.floor(rand() * 200_000);
      const data = rand() < 0.5 ? jsonl(size).subarray(0, size) : Buffer.from(Array.from({ length: size }, () => Math.floor(rand() * 256)));
      const name = `${rand() < 0.3 ? 'raw/mémoire/' : 'memory/'}${i}-${Math.floor(rand() * 1e6)}${rand() < 0.2 ? '-日誌' : ''}.md`;
      const entry: ZipEntry = { name, data, store: rand() < 0.15 };
      if (!entry.store && size > 0 && size < SMALL_BYTES && rand() < 0.5) deflateAhead(data);
      if (!entry.store && size >= SMALL_BYTES && rand() < 0.5) {
        // Large members' Deflate started while their bytes were made, from shared memory (as the partitions' are).
        const ahead = StreamedDeflate.start(LARGE_LEVEL);
        if (ahead) {
          const shared = new Uint8Array(new SharedArrayBuffer(size));
          shared.set(data);
          ahead.write(shared);
          ahead.end();
          entry.ahead = ahead;
        }
      }
      out.push(entry);
    }
    return out;
  }

  it('writes, byte for byte, the archive yazl writes from the same members (50 random sets)', async () => {
    for (let seed = 1; seed <= 50; seed++) {
      const entries = members(seed);
      const direct = Buffer.from(await writeZip(entries));
      const yazl = Buffer.from(await writeZipWithYazl(entries));
      expect(direct.equals(yazl), `seed ${seed}`).toBe(true);
      const { files } = await readZip(direct, resolveLimits());
      for (const { name, data } of entries) expect(Buffer.from(files.get(name)!).equals(data), `seed ${seed} ${name}`).toBe(true);
    }
  });

  it('writes the same archive as yazl for no member at all', async () => {
    expect(Buffer.from(await writeZip([])).equals(Buffer.from(await writeZipWithYazl([])))).toBe(true);
  });

  it('leaves to yazl only archives that may need ZIP64 fields: 65,535 members or more, or past 4 GiB', () => {
    const empty = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `m/${i}`, data: new Uint8Array(0) }));
    expect(writesThroughYazl(empty(0xfffe))).toBe(false);
    expect(writesThroughYazl(empty(0xffff))).toBe(true);
    // Only the sizes are looked at: members that would end past 4 GiB, deflated or not.
    const huge = (byteLength: number) => ({ name: 'memory/huge.jsonl', data: { byteLength } as Uint8Array });
    expect(writesThroughYazl([huge(0x3fff_ffff), huge(0x3fff_ffff), huge(0x3fff_ffff)])).toBe(false);
    expect(writesThroughYazl([huge(0x3fff_ffff), huge(0x3fff_ffff), huge(0x3fff_ffff), huge(0x3fff_ffff)])).toBe(true);
  });
});
