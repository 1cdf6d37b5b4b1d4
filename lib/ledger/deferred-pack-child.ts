/**
 * The packer of deferred-pack-crash.test.ts, in its own process so the test can SIGKILL it while
 * it packs: says `ready` once loaded, then runs `packStored` over the store at PACK_ROOT (blobs
 * written whole by a deferred store) and exits. Not a test.
 */
import { FsBlobStore } from './blob-store';

const root = process.env.PACK_ROOT;
if (!root || !process.send) throw new Error('run by deferred-pack-crash.test.ts only');

const store = new FsBlobStore(root, { pack: 'deferred' });
process.send({ ready: true });
await store.packStored();
process.exit(0);
