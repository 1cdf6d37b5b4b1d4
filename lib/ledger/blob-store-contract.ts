/**
 * The contract every `BlobStore` keeps (blob-store.ts), as one suite each implementation runs:
 * `runBlobStoreContract('fs', () => new FsBlobStore(dir))`, the S3 store against radosgw.
 */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from './blob-store';
import { isLedgerError } from './errors';

const bytesOf = (text: string) => new TextEncoder().encode(text);

export function runBlobStoreContract(name: string, makeStore: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('get returns exactly the bytes put, binary and empty included', async () => {
      const store = await makeStore();
      const binary = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256);
      await store.put('a1/0-abc.alf', binary);
      await store.put('a1/1-empty.alf-delta', new Uint8Array());
      expect(Buffer.from(await store.get('a1/0-abc.alf')).equals(Buffer.from(binary))).toBe(true);
      expect((await store.get('a1/1-empty.alf-delta')).byteLength).toBe(0);
    });

    it('a missing key: get throws blob_missing, exists is false, delete is a no-op', async () => {
      const store = await makeStore();
      const error = await store.get('nobody/0-x.alf').catch((e: unknown) => e);
      expect(isLedgerError(error, 'blob_missing')).toBe(true);
      expect(await store.exists('nobody/0-x.alf')).toBe(false);
      await store.delete('nobody/0-x.alf');
      await store.put('k/0-y.alf', bytesOf('y'));
      expect(await store.exists('k/0-y.alf')).toBe(true);
      await store.delete('k/0-y.alf');
      expect(await store.exists('k/0-y.alf')).toBe(false);
    });

    it('list gives every key under a prefix, sorted, and only those', async () => {
      const store = await makeStore();
      const keys = ['b2/10-d.alf-delta', 'b2/2-c.alf-delta', 'b2/0-a.alf', 'b20/0-z.alf', 'c3/0-q.alf'];
      for (const key of keys) await store.put(key, bytesOf(key));
      expect(await store.list('b2/')).toEqual(['b2/0-a.alf', 'b2/10-d.alf-delta', 'b2/2-c.alf-delta']);
      expect(await store.list('b2')).toEqual(['b2/0-a.alf', 'b2/10-d.alf-delta', 'b2/2-c.alf-delta', 'b20/0-z.alf']);
      expect(await store.list('none/')).toEqual([]);
      const all = await store.list();
      expect(all).toEqual([...all].sort());
      expect(all).toEqual(expect.arrayContaining(keys));
    });

    it('refuses keys that are not safe relative .alf / .alf-delta names', async () => {
      const store = await makeStore();
      for (const key of ['../x.alf', 'a/../../x.alf', '/abs.alf', 'a/b.txt', 'a//b.alf', '.hidden.alf']) {
        const error = await store.put(key, bytesOf('x')).catch((e: unknown) => e);
        expect(isLedgerError(error, 'invalid_input'), key).toBe(true);
      }
    });
  });
}
