import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unzip } from '@/e2e/unzip';
import { zipStream, type ZipSource } from './zip-stream';

const toBuffer = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

function source(count: number, tiny = false): ZipSource & { files: Map<string, Buffer> } {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) files.set(`dir-${i % 7}/café ${i}.md`, Buffer.from(i % 3 === 0 ? '' : tiny ? `${i}` : `# note ${i}\n${'x'.repeat(i % 200)}`));
  const all = [...files].map(([name, data]) => ({ name, data }));
  const pages = function* () {
    for (let i = 0; i < all.length; i += 50) yield all.slice(i, i + 50);
  };
  return { files, get pages() { return pages(); }, mtime: new Date('2026-03-04T05:06:08Z') };
}

describe('zipStream', () => {
  it('writes every entry byte-exact with UTF-8 names, deterministically', async () => {
    const s = source(500);
    const zip = await toBuffer(zipStream(s));
    expect(await unzip(zip)).toEqual(s.files);
    expect((await toBuffer(zipStream(s))).equals(zip)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-zip-'));
    try {
      fs.writeFileSync(path.join(dir, 'w.zip'), zip);
      // Info-ZIP's own test of the archive, and the times and modes it lists.
      const listing = execFileSync('unzip', ['-Z', '-T', path.join(dir, 'w.zip')], { encoding: 'utf8' });
      expect(listing).toMatch(/-rw-r--r--.* 20260304\.050608 dir-0\/café 0\.md/);
      execFileSync('unzip', ['-tq', path.join(dir, 'w.zip')]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // no unzip(1) here: yauzl's reading stands
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('past 65,534 entries writes Zip64 end records that readers follow', async () => {
    const s = source(70_000, true);
    const files = await unzip(await toBuffer(zipStream(s)));
    expect(files.size).toBe(70_000);
    expect(files.get('dir-1/café 69994.md')).toEqual(s.files.get('dir-1/café 69994.md'));
  });

  it('yields to the event loop while it streams a 20,000-file workspace', async () => {
    const s = source(20_000);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    let firstChunkTurns = -1;
    const stream = zipStream(s);
    stream.once('data', () => (firstChunkTurns = turns));
    await toBuffer(stream);
    clearInterval(ticker);
    expect(firstChunkTurns).toBeGreaterThanOrEqual(0);
    expect(turns).toBeGreaterThan(firstChunkTurns + 1);
  });
});
