import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readZip, readZipMember, resolveLimits } from './zip-read';
import { writeZip } from './zip-write';

/** Counts turns of the event loop until stopped. */
function countTurns(): { stop(): number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => { running = false; return turns; } };
}

describe('readZip', () => {
  it('reads an archive held in memory without waiting a turn of the event loop per member', async () => {
    const entries = Array.from({ length: 300 }, (_, i) => ({ name: `raw/openclaw/memory/note-${i}.md`, data: Buffer.from(`# note ${i}\n`) }));
    const bytes = await writeZip(entries);
    const turns = countTurns();
    const { files } = await readZip(bytes, resolveLimits());
    const seen = turns.stop();
    expect([...files.keys()]).toEqual(entries.map((e) => e.name));
    expect(Buffer.from(files.get('raw/openclaw/memory/note-299.md')!).toString()).toBe('# note 299\n');
    // yauzl's reader answered each of its ~900 reads a turn later; this one answers on the next tick.
    expect(seen).toBeLessThan(10);
  });
});

describe('readZipMember', () => {
  /** An archive of a large member, `manifest.json` and another large member, both large ones' data damaged (their CRC-32 fails). */
  async function damagedAroundManifest(): Promise<Uint8Array> {
    const large = () => randomBytes(64 * 1024);
    const bytes = await writeZip([
      { name: 'records/memory/part-0.jsonl', data: large() },
      { name: 'manifest.json', data: Buffer.from('{"created_at":"2026-05-01T00:00:00Z"}') },
      { name: 'records/memory/part-1.jsonl', data: large() },
    ]);
    const damaged = Buffer.from(bytes);
    // Random bytes do not compress: each member's data is about its 64 KiB, at these offsets.
    for (const at of [20_000, damaged.length - 40_000]) damaged[at] = damaged[at]! ^ 0xff;
    return damaged;
  }

  it('inflates only the member asked for: the others, damaged, are not read', async () => {
    const bytes = await damagedAroundManifest();
    await expect(readZip(bytes, resolveLimits())).rejects.toThrow(/fails its CRC-32 check/);
    const manifest = await readZipMember(bytes, 'manifest.json', resolveLimits());
    expect(Buffer.from(manifest!).toString()).toBe('{"created_at":"2026-05-01T00:00:00Z"}');
    await expect(readZipMember(bytes, 'records/memory/part-1.jsonl', resolveLimits())).rejects.toThrow(/fails its CRC-32 check/);
  });

  it('is null for a name the archive does not hold, and keeps the caps and the name checks', async () => {
    const bytes = await writeZip([{ name: 'manifest.json', data: Buffer.from('{}'.padEnd(100, ' ')) }]);
    expect(await readZipMember(bytes, 'identity.json', resolveLimits())).toBeNull();
    await expect(readZipMember(bytes, 'manifest.json', resolveLimits({ maxEntryUncompressedBytes: 50 }))).rejects.toThrow(/per-entry limit of 50 bytes/);
    await expect(readZipMember(bytes, 'manifest.json', resolveLimits({ maxEntries: 0 }))).rejects.toThrow(/more than the limit of 0/);
  });
});
