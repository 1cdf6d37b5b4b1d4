import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBlobStore } from './blob-store';
import { runBlobStoreContract } from './blob-store-contract';

runBlobStoreContract('filesystem', async () => new FsBlobStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blobs-')), 'blobs')));

describe('FsBlobStore.list', () => {
  it('skips the temp files of writes in flight and answers [] before the first put', async () => {
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blobs-')), 'blobs');
    const store = new FsBlobStore(root);
    expect(await store.list()).toEqual([]);
    await store.put('a/0-x.alf', new Uint8Array([1]));
    fs.writeFileSync(path.join(root, 'a~1-y.alf-delta.tmp-123-abcd'), 'half');
    expect(await store.list()).toEqual(['a/0-x.alf']);
  });
});
