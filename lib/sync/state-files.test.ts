/**
 * The state files' writes at the file level: writeFileAtomic (small files synchronously, large on
 * the thread pool) and the store log's append (the same split), each on both paths.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SMALL_FILE, writeFileAtomic } from './state';
import { LogAppender } from './store/log';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-state-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sizes = { small: 100, large: SMALL_FILE + 100 };

describe('writeFileAtomic', () => {
  for (const [name, size] of Object.entries(sizes)) {
    it(`${name} file: replaces the file whole; a failed write throws and leaves no temporary file`, async () => {
      const file = path.join(dir, `${name}.txt`);
      const bytes = Buffer.alloc(size, 0x61);
      await writeFileAtomic(file, Buffer.from('old'));
      await writeFileAtomic(file, bytes);
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
      // A rename that fails (the target is a non-empty directory): the error, and nothing left behind.
      const blocked = path.join(dir, `${name}-blocked`);
      fs.mkdirSync(path.join(blocked, 'inside'), { recursive: true });
      await expect(writeFileAtomic(blocked, bytes)).rejects.toThrow();
      expect(fs.readdirSync(dir).filter((n) => n.startsWith(`${name}-blocked.tmp-`))).toEqual([]);
    });
  }
});

describe('the store log append', () => {
  for (const [name, size] of Object.entries(sizes)) {
    it(`${name} append: written at the index's length, what a killed sync left beyond it cut off`, async () => {
      const file = path.join(dir, `${name}.log`);
      const first = new LogAppender(0);
      first.append(Buffer.from('head'));
      await first.writeTo(file);
      // A killed sync's append that no index names.
      fs.appendFileSync(file, Buffer.alloc(size * 2, 0x78));
      const next = new LogAppender(4);
      const block = Buffer.alloc(size, 0x62);
      expect(next.append(block)).toEqual({ off: 4, len: size });
      await next.writeTo(file);
      expect(fs.readFileSync(file).equals(Buffer.concat([Buffer.from('head'), block]))).toBe(true);
    });
  }
});
