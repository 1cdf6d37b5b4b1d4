import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FsBlobStore } from './blob-store';
import { GROUP } from './blob-packing';
import { isLedgerError } from './errors';
import { decodePackedHeader, zlibDeflater } from './packed-blob';

const tempRoot = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'packed-')), 'blobs');
const files = (root: string) => fs.readdirSync(root).sort();
const packedCount = (root: string) => files(root).filter((n) => n.endsWith('.packed')).length;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** A blob like a ledger delta: the previous one with a few bytes changed, inserted and cut. */
function nextVersion(prev: Uint8Array, edits: { at: number; cut: number; insert: number[] }[]): Uint8Array {
  let out = Buffer.from(prev);
  for (const e of edits) {
    const at = prev.byteLength === 0 ? 0 : e.at % (out.byteLength + 1);
    out = Buffer.concat([out.subarray(0, at), Buffer.from(e.insert), out.subarray(Math.min(out.byteLength, at + e.cut))]);
  }
  return new Uint8Array(out);
}

const editArb = fc.record({ at: fc.nat(), cut: fc.nat({ max: 40 }), insert: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 60 }) });

describe('FsBlobStore packed at rest', () => {
  it('returns exactly the bytes put over random histories of several agents, with deletes, from this and from a fresh store', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.uint8Array({ minLength: 0, maxLength: 3000 }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ agent: fc.nat({ max: 2 }), edits: fc.array(editArb, { maxLength: 4 }), fresh: fc.boolean(), del: fc.nat({ max: 12 }) }), { minLength: 1, maxLength: 90 }),
      async (starts, steps) => {
        const root = tempRoot();
        const store = new FsBlobStore(root);
        const truth = new Map<string, Uint8Array>();
        const last: Uint8Array[] = starts.map((s) => s);
        const seq = starts.map(() => 0);
        for (const [i, step] of steps.entries()) {
          const agent = step.agent % starts.length;
          last[agent] = step.fresh ? nextVersion(new Uint8Array(), [{ at: 0, cut: 0, insert: [...step.edits.flatMap((e) => e.insert)] }]) : nextVersion(last[agent]!, step.edits);
          const key = `agent${agent}/${seq[agent]!++}-${i}.alf-delta`;
          await store.put(key, last[agent]!);
          truth.set(key, last[agent]!);
          if (step.del === 0 && truth.size > 1) {
            const victim = [...truth.keys()][i % truth.size]!;
            await store.delete(victim);
            truth.delete(victim);
          }
        }
        const fresh = new FsBlobStore(root);
        for (const [key, bytes] of truth) {
          expect(same(await store.get(key), bytes), key).toBe(true);
          expect(same(await fresh.get(key), bytes), key).toBe(true);
        }
        expect(await fresh.list()).toEqual([...truth.keys()].sort());
        expect(files(root).filter((n) => !/\.alf(-delta)?(\.packed)?$/.test(n))).toEqual([]);
        fs.rmSync(path.dirname(root), { recursive: true, force: true });
      },
    ), { numRuns: 40 });
  }, 120_000);

  it('packs a delta against the one before it, and starts every group of sequences whole', async () => {
    const root = tempRoot();
    const store = new FsBlobStore(root);
    let bytes: Uint8Array = new Uint8Array(Buffer.from('PK header and a manifest '.repeat(40)));
    for (let seq = 0; seq < GROUP + 3; seq++) {
      bytes = nextVersion(bytes, [{ at: seq * 7, cut: 3, insert: [seq & 255, 1, 2, 3] }]);
      await store.put(`a/${seq}-x.alf-delta`, bytes);
    }
    expect(store.fileOf('a/0-x.alf-delta')).toBe(store.pathOf('a/0-x.alf-delta'));
    expect(store.fileOf('a/1-x.alf-delta')).toBe(`${store.pathOf('a/1-x.alf-delta')}.packed`);
    expect(store.fileOf(`a/${GROUP}-x.alf-delta`)).toBe(store.pathOf(`a/${GROUP}-x.alf-delta`));
    expect(packedCount(root)).toBe(GROUP + 3 - 2);
    expect(fs.statSync(store.fileOf('a/5-x.alf-delta')!).size).toBeLessThan(bytes.byteLength / 4);
  });

  it('a data directory of whole blobs (the layout before packing) keeps reading unchanged, and new blobs pack against old ones', async () => {
    const root = tempRoot();
    const old = new FsBlobStore(root, { pack: false });
    const truth = new Map<string, Uint8Array>();
    let bytes: Uint8Array = new Uint8Array(Buffer.from('an old ledger blob, stored whole. '.repeat(30)));
    for (let seq = 0; seq < 5; seq++) {
      bytes = nextVersion(bytes, [{ at: seq * 11, cut: 2, insert: [seq, seq] }]);
      await old.put(`old/${seq}-x.alf-delta`, bytes);
      truth.set(`old/${seq}-x.alf-delta`, bytes);
    }
    expect(packedCount(root)).toBe(0);
    const before = new Map(files(root).map((n) => [n, fs.readFileSync(path.join(root, n))]));
    const store = new FsBlobStore(root);
    for (let seq = 5; seq < 9; seq++) {
      bytes = nextVersion(bytes, [{ at: seq * 11, cut: 2, insert: [seq, seq] }]);
      await store.put(`old/${seq}-x.alf-delta`, bytes);
      truth.set(`old/${seq}-x.alf-delta`, bytes);
    }
    expect(packedCount(root)).toBe(4);
    for (const [name, content] of before) expect(fs.readFileSync(path.join(root, name)).equals(content), name).toBe(true);
    for (const reader of [store, new FsBlobStore(root), new FsBlobStore(root, { pack: false })]) {
      for (const [key, b] of truth) expect(same(await reader.get(key), b), key).toBe(true);
      expect(await reader.list('old/')).toEqual([...truth.keys()].sort());
    }
  });

  it('stores a blob whole when its packed form does not read back as the same sha256', async () => {
    const root = tempRoot();
    // A deflater whose output inflates to other bytes (one byte flipped before deflating).
    const wrong = new FsBlobStore(root, {
      deflate: (bytes, dictionary) => {
        const copy = Buffer.from(bytes);
        copy[copy.length >> 1] = copy[copy.length >> 1]! ^ 1;
        return zlibDeflater(copy, dictionary);
      },
    });
    const throwing = new FsBlobStore(root, { deflate: () => { throw new Error('no deflate today'); } });
    const base = new Uint8Array(Buffer.from('a blob to pack against. '.repeat(50)));
    const next = nextVersion(base, [{ at: 100, cut: 1, insert: [9, 9, 9] }]);
    const third = nextVersion(next, [{ at: 200, cut: 1, insert: [7] }]);
    await wrong.put('v/0-a.alf-delta', base);
    await wrong.put('v/1-b.alf-delta', next);
    await throwing.put('v/2-c.alf-delta', third);
    expect(packedCount(root)).toBe(0);
    expect(same(await new FsBlobStore(root).get('v/1-b.alf-delta'), next)).toBe(true);
    expect(same(await new FsBlobStore(root).get('v/2-c.alf-delta'), third)).toBe(true);
    // The same store with a correct deflater packs the next one.
    await new FsBlobStore(root).put('v/3-d.alf-delta', nextVersion(third, [{ at: 5, cut: 0, insert: [1] }]));
    expect(packedCount(root)).toBe(1);
  });

  it('a deleted base first has its dependants rewritten whole; a base being deleted is not used', async () => {
    const root = tempRoot();
    const store = new FsBlobStore(root);
    const v: Uint8Array[] = [new Uint8Array(Buffer.from('version zero of the blob. '.repeat(40)))];
    for (let i = 1; i < 4; i++) v.push(nextVersion(v[i - 1]!, [{ at: i * 13, cut: 1, insert: [i] }]));
    for (let i = 0; i < 4; i++) await store.put(`d/${i}-k.alf-delta`, v[i]!);
    expect(packedCount(root)).toBe(3);
    // 2 and 3 are packed against 1 (among others): removing 1 rewrites them whole.
    await store.delete('d/1-k.alf-delta');
    expect(store.fileOf('d/1-k.alf-delta')).toBeNull();
    expect(store.fileOf('d/2-k.alf-delta')).toBe(store.pathOf('d/2-k.alf-delta'));
    expect(store.fileOf('d/3-k.alf-delta')).toBe(store.pathOf('d/3-k.alf-delta'));
    for (const i of [0, 2, 3]) expect(same(await new FsBlobStore(root).get(`d/${i}-k.alf-delta`), v[i]!)).toBe(true);
    expect(files(root).filter((n) => n.endsWith('.deleting'))).toEqual([]);
    // A delete in progress elsewhere (its marker): the next blob is not packed against that key.
    fs.writeFileSync(`${store.pathOf('d/3-k.alf-delta')}.deleting`, '');
    const v4 = nextVersion(v[3]!, [{ at: 3, cut: 0, insert: [4] }]);
    await new FsBlobStore(root).put('d/4-k.alf-delta', v4);
    expect(decodePackedHeader('d/4-k.alf-delta', fs.readFileSync(store.fileOf('d/4-k.alf-delta')!)).bases).toEqual(['d/0-k.alf-delta', 'd/2-k.alf-delta']);
    fs.rmSync(`${store.pathOf('d/3-k.alf-delta')}.deleting`);
    // deleteMany of a whole agent: nothing rewritten, nothing left.
    await store.deleteMany(['d/0-k.alf-delta', 'd/2-k.alf-delta', 'd/3-k.alf-delta', 'd/4-k.alf-delta']);
    expect(files(root)).toEqual([]);
    const error = await store.get('d/3-k.alf-delta').catch((e: unknown) => e);
    expect(isLedgerError(error, 'blob_missing')).toBe(true);
  });

  it('a damaged packed file or base is blob_corrupt, never other bytes', async () => {
    const root = tempRoot();
    const store = new FsBlobStore(root);
    const a = new Uint8Array(Buffer.from('the base blob, whole on disk. '.repeat(40)));
    const b = nextVersion(a, [{ at: 50, cut: 2, insert: [1, 2, 3] }]);
    await store.put('c/0-a.alf-delta', a);
    await store.put('c/1-b.alf-delta', b);
    const base = store.pathOf('c/0-a.alf-delta');
    const original = fs.readFileSync(base);
    // Every byte of the base changed (a flipped byte the delta never copies from changes nothing read).
    fs.writeFileSync(base, Buffer.alloc(original.byteLength, 0x41));
    const error = await new FsBlobStore(root).get('c/1-b.alf-delta').catch((e: unknown) => e);
    expect(isLedgerError(error, 'blob_corrupt')).toBe(true);
    fs.writeFileSync(base, original);
    const packed = store.fileOf('c/1-b.alf-delta')!;
    const body = fs.readFileSync(packed);
    body[body.length - 3] = body[body.length - 3]! ^ 0xff;
    fs.writeFileSync(packed, body);
    const again = await new FsBlobStore(root).get('c/1-b.alf-delta').catch((e: unknown) => e);
    expect(isLedgerError(again, 'blob_corrupt')).toBe(true);
  });
});
