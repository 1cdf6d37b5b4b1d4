/**
 * A contender for the packer lock in its own process (packer-lock.test.ts): waits for `go` over
 * IPC, tries once, reports `got` or `busy`, holds a won lock until told to `release`. Not a test.
 */
import { acquirePackerLock } from '../packer-lock';

const dataDir = process.env.LOCK_DATA;
if (!dataDir || !process.send) throw new Error('run by packer-lock.test.ts only');
process.send('ready');
process.on('message', (message) => {
  if (message === 'go') {
    const lock = acquirePackerLock(dataDir);
    process.send!(lock ? 'got' : 'busy');
    process.on('message', (next) => {
      if (next === 'release') {
        lock?.release();
        process.exit(0);
      }
    });
  }
});
