import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeZip } from '@/lib/core/archive/zip-write';
import { FsBlobStore } from './blob-store';
import { isLedgerError } from './errors';
import { decodePackedHeader, zlibDeflater } from './packed-blob';
import { describeStructure, fromStructure, toStructure } from './zip-structure';

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const text = (n: number) => new TextEncoder().encode(Array.from({ length: n }, (_, i) => `- ${i}: the agent noted fact ${(i * 37) % 101}\n`).join(''));

/** An ALF-like archive as the client writes it (fflate below 16 KiB, zlib level 1 above, one member Stored, one empty). */
const archive = (turn: number) => writeZip([
  { name: 'memory/delta.jsonl', data: text(10 + turn) },
  { name: 'raw/notes/big.md', data: text(600 + turn * 3) },
  { name: 'raw/empty.md', data: new Uint8Array() },
  { name: 'raw/kept.bin', data: text(5), store: true },
  { name: 'delta-manifest.json', data: new TextEncoder().encode(JSON.stringify({ turn, files: 4 })) },
]);

describe('structural form of a blob', () => {
  it('takes every Deflated member of a real archive apart and gives back the exact bytes', async () => {
    const zip = await archive(3);
    const form = toStructure(zip);
    expect(same(fromStructure(form), zip)).toBe(true);
    const d = describeStructure(form);
    // memory, big (zlib), empty (a deflated empty member) and manifest; the Stored one stays raw.
    expect(d.members).toBe(4);
    expect(d.skeleton).toBeLessThan(zip.byteLength / 2);
  });

  it('gives back any byte string exactly: random bytes, cut and patched archives (property)', async () => {
    const zip = await archive(1);
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.nat(), fc.nat({ max: 255 }), fc.nat(), async (random, at, value, cut) => {
      const patched = Uint8Array.from(zip);
      patched[at % patched.length] = value;
      for (const blob of [random, patched, zip.subarray(0, cut % zip.length), Buffer.concat([zip, random])]) {
        expect(same(fromStructure(toStructure(blob)), blob)).toBe(true);
      }
    }), { numRuns: 150 });
  });

  it('refuses a damaged form: cut, extended, bad block type, bad skeleton', async () => {
    const form = toStructure(await archive(2));
    expect(() => fromStructure(form.subarray(0, form.length - 1))).toThrow();
    expect(() => fromStructure(Buffer.concat([form, Buffer.from([0])]))).toThrow(/trailing/);
    const d = describeStructure(form);
    const headAt = form.length - d.head - d.tokens - d.literals;
    const badType = Uint8Array.from(form);
    badType[headAt] = 7;
    expect(() => fromStructure(badType)).toThrow(/reserved|bad block/);
    const badVersion = Uint8Array.from(form);
    badVersion[0] = 9;
    expect(() => fromStructure(badVersion)).toThrow(/unknown/);
  });

  it('falls back to packing the bytes against the base (ALP1) when the structural form cannot be packed, read back exactly', async () => {
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-structure-')), 'blobs');
    // A deflater that refuses structural forms (they start with their version byte, archives with "PK").
    const store = new FsBlobStore(root, { deflate: (bytes, dictionary) => {
      if (bytes[0] !== 0x50) throw new Error('no structural forms today');
      return zlibDeflater(bytes, dictionary);
    } });
    const v0 = await archive(0), v1 = await archive(1);
    await store.put('agent-y/0-k.alf-delta', v0);
    await store.put('agent-y/1-k.alf-delta', v1);
    const file = store.fileOf('agent-y/1-k.alf-delta')!;
    expect(file.endsWith('.packed')).toBe(true);
    expect(decodePackedHeader('agent-y/1-k.alf-delta', fs.readFileSync(file)).structural).toBe(false);
    expect(same(await new FsBlobStore(root).get('agent-y/1-k.alf-delta'), v1)).toBe(true);
    // The store's own deflater packs the next one structurally, against the ALP1 blob.
    const v2 = await archive(2);
    await new FsBlobStore(root).put('agent-y/2-k.alf-delta', v2);
    expect(decodePackedHeader('agent-y/2-k.alf-delta', fs.readFileSync(store.fileOf('agent-y/2-k.alf-delta')!)).structural).toBe(true);
    expect(same(await new FsBlobStore(root).get('agent-y/2-k.alf-delta'), v2)).toBe(true);
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  });

  it('packs consecutive archive versions small, and a damaged packed archive is blob_corrupt naming its key', async () => {
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-structure-')), 'blobs');
    const store = new FsBlobStore(root);
    const versions: Uint8Array[] = [];
    for (let turn = 0; turn < 6; turn++) {
      versions.push(await archive(turn));
      await store.put(`agent-z/${turn}-k.alf-delta`, versions[turn]!);
    }
    const file = store.fileOf('agent-z/4-k.alf-delta')!;
    expect(decodePackedHeader('agent-z/4-k.alf-delta', fs.readFileSync(file)).structural).toBe(true);
    // The members grew by a few lines: the packed file is a small fraction of the archive.
    expect(fs.statSync(file).size).toBeLessThan(versions[4]!.byteLength / 5);
    for (const [turn, bytes] of versions.entries()) expect(same(await new FsBlobStore(root).get(`agent-z/${turn}-k.alf-delta`), bytes)).toBe(true);
    const body = fs.readFileSync(file);
    body[body.length - 2] = body[body.length - 2]! ^ 0x55;
    fs.writeFileSync(file, body);
    for (const turn of [4, 5]) {
      const error = await new FsBlobStore(root).get(`agent-z/${turn}-k.alf-delta`).catch((e: unknown) => e);
      expect(isLedgerError(error, 'blob_corrupt')).toBe(true);
      expect((error as Error).message).toContain(`agent-z/${turn}-k.alf-delta`);
    }
    expect(same(await new FsBlobStore(root).get('agent-z/3-k.alf-delta'), versions[3]!)).toBe(true);
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  });
});
