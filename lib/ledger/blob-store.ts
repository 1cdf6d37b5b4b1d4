/**
 * Where the ledger's archives live. Contract every implementation keeps:
 * - `put` is atomic and durable: after it resolves the bytes survive a crash, and a reader never
 *   sees a partial blob under `key`;
 * - `get` returns exactly the bytes put, or throws `LedgerError('blob_missing')`;
 * - keys are `/`-separated relative names ending in `.alf` or `.alf-delta`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LedgerError } from './errors';

export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws unless `key` is a safe relative blob name with an `.alf` / `.alf-delta` extension. */
export function assertBlobKey(key: string): void {
  const segments = key.split('/');
  const ok = segments.length >= 1 && segments.every((s) => SEGMENT.test(s) && s !== '..')
    && (key.endsWith('.alf') || key.endsWith('.alf-delta'));
  if (!ok) throw new LedgerError('invalid_input', `bad blob key "${key}": expected safe path segments ending in .alf or .alf-delta`);
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `BlobStore` on the local filesystem under `<data>/blobs/`. */
export class FsBlobStore implements BlobStore {
  /** Directories known to exist: one mkdir per agent directory, not one per upload. */
  private readonly knownDirs = new Set<string>();

  constructor(readonly root: string) {}

  private file(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  /** Temp file, fsync, rename onto the final name, fsync the directory. */
  async put(key: string, bytes: Uint8Array): Promise<void> {
    const final = this.file(key);
    const dir = path.dirname(final);
    if (!this.knownDirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.knownDirs.add(dir);
    }
    const temp = `${final}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await fs.rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    await fs.rename(temp, final);
    await fsyncDir(dir);
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await fs.readFile(this.file(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new LedgerError('blob_missing', `blob ${key} is missing from ${this.root}`);
      }
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.file(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  /** Removes a directory under the root if it is empty (after an agent's blobs are deleted). */
  async pruneDir(relative: string): Promise<void> {
    const dir = path.join(this.root, ...relative.split('/'));
    this.knownDirs.delete(dir);
    await fs.rmdir(dir).catch(() => undefined);
  }
}
