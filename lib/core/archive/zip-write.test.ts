import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { prng } from '../prng';
import { readZip, resolveLimits } from './zip-read';
import { deflateChunkSize, writeZip } from './zip-write';

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
