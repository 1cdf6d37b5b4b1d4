/**
 * The writer of packed-crash.test.ts, in its own process so the test can SIGKILL it mid-write:
 * puts blobs of one agent from sequence CRASH_START on (each the previous one with a line added,
 * so they pack), deletes an earlier one every seventh step (as a lost upload race does), and
 * reports each put or delete over IPC only after it resolved. Not a test.
 */
import { FsBlobStore } from './blob-store';
import { crashBlobAt, crashKey } from './packed-crash-data';

const root = process.env.CRASH_ROOT;
const start = Number(process.env.CRASH_START);
if (!root || !Number.isSafeInteger(start) || !process.send) throw new Error('run by packed-crash.test.ts only');

const store = new FsBlobStore(root);
for (let seq = start; ; seq++) {
  await store.put(crashKey(seq), crashBlobAt(seq));
  process.send({ put: seq });
  if (seq % 7 === 3 && seq - 2 >= start) {
    await store.delete(crashKey(seq - 2));
    process.send({ deleted: seq - 2 });
  }
}
