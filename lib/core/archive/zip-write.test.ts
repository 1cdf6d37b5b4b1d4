import { describe, expect, it } from 'vitest';
import { prng } from '../prng';
import { readZip, resolveLimits } from './zip-read';
import { writeZip, writeZipWithYazl, type ZipEntry } from './zip-write';

function bytesOf(rand: () => number, size: number, text: boolean): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = text ? 32 + Math.floor(rand() * 20) : Math.floor(rand() * 256);
  return out;
}

describe('writeZip', () => {
  it('writes the same bytes as yazl for stored and deflated members', async () => {
    const rand = prng(11);
    const entries: ZipEntry[] = [
      { name: 'identity.json', data: new TextEncoder().encode('{"a": 1}') },
      { name: 'memory/2026-Q1.jsonl', data: bytesOf(rand, 200_000, true) },
      { name: 'empty.txt', data: new Uint8Array() },
      { name: 'raw/openclaw/memory/ünïcode name.md', data: bytesOf(rand, 16 * 1024 - 1, true) },
      { name: 'raw/openclaw/exactly-16k.bin', data: bytesOf(rand, 16 * 1024, false) },
      { name: 'raw/openclaw/random.bin', data: bytesOf(rand, 70_000, false) },
      { name: 'manifest.json', data: new TextEncoder().encode('{}') },
    ];
    const ours = await writeZip(entries);
    expect(Buffer.from(ours).equals(Buffer.from(await writeZipWithYazl(entries)))).toBe(true);
    const read = await readZip(ours, resolveLimits());
    expect([...read.files.keys()]).toEqual(entries.map((e) => e.name));
    for (const e of entries) expect(Buffer.from(read.files.get(e.name)!).equals(Buffer.from(e.data))).toBe(true);
  });

  it('writes an empty archive as yazl does', async () => {
    expect(Buffer.from(await writeZip([])).equals(Buffer.from(await writeZipWithYazl([])))).toBe(true);
  });
});
