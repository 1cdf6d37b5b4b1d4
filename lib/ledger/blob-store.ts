/**
 * Where the ledger's archives live. Contract every implementation keeps:
 * - `put` is atomic and durable: after it resolves the bytes survive a crash, and a reader never
 *   sees a partial blob under `key`;
 * - `get` returns exactly the bytes put, or throws `LedgerError('blob_missing')`;
 * - keys are `/`-separated relative names ending in `.alf` or `.alf-delta`;
 * - `list(prefix)` returns every stored key starting with `prefix`, sorted, nothing half-written.
 */
import { randomBytes } from 'node:crypto';
import { close, fdatasync, fsync, open, rename, write } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { asUint8Array } from '@/lib/core/bytes';
import { LedgerError } from './errors';

export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix?: string): Promise<string[]>;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws unless `key` is a safe relative blob name with an `.alf` / `.alf-delta` extension. */
export function assertBlobKey(key: string): void {
  const segments = key.split('/');
  const ok = segments.length >= 1 && segments.every((s) => SEGMENT.test(s) && s !== '..')
    && (key.endsWith('.alf') || key.endsWith('.alf-delta'));
  if (!ok) throw new LedgerError('invalid_input', `bad blob key "${key}": expected safe path segments ending in .alf or .alf-delta`);
}

const openFile = promisify(open);
const closeFile = promisify(close);
const datasync = promisify(fdatasync);
const fsyncFd = promisify(fsync);

/**
 * Closes the directory descriptor of a store nobody holds any more. A plain descriptor, not a
 * FileHandle: Node closes a forgotten FileHandle itself, but warns (DEP0137) every time.
 */
const dirDescriptors = new FinalizationRegistry<number>((fd) => close(fd, () => {}));
const renameFile = promisify(rename);
const writeAt = promisify(write);
/** Writes from `offset`, returning how many bytes went out. */
async function writeFile(fd: number, bytes: Uint8Array, offset: number, length: number): Promise<number> {
  return (await writeAt(fd, bytes, offset, length, null)).bytesWritten;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `BlobStore` on the local filesystem: every blob is a file directly in `<data>/blobs/`, its key's
 * `/` written as `~` (a character keys cannot contain, so names stay unique). One flat directory
 * lets concurrent uploads share the directory fsync that makes their renames durable.
 */
export class FsBlobStore implements BlobStore {
  private rootReady: Promise<void> | null = null;
  private dirSyncRunning: Promise<void> | null = null;
  private dirSyncQueued: Promise<void> | null = null;

  constructor(readonly root: string) {}

  /** The file that holds `key`. */
  pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key.split('/').join('~'));
  }

  /**
   * Temp file, fdatasync, rename onto the final name, fsync the directory (shared with concurrent
   * puts). Plain fd calls rather than a FileHandle: this is every upload's path, and each
   * FileHandle operation costs the event loop noticeably more.
   */
  async put(key: string, bytes: Uint8Array): Promise<void> {
    const final = this.pathOf(key);
    await (this.rootReady ??= fs.mkdir(this.root, { recursive: true }).then(() => undefined));
    const temp = `${final}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    const fd = await openFile(temp, 'wx');
    try {
      for (let offset = 0; offset < bytes.byteLength;) {
        offset += await writeFile(fd, bytes, offset, bytes.byteLength - offset);
      }
      // fdatasync: the bytes and the size needed to read them back, without the inode's times.
      await datasync(fd);
    } catch (error) {
      await closeFile(fd);
      await fs.rm(temp, { force: true });
      throw error;
    }
    await closeFile(fd);
    await renameFile(temp, final);
    await this.syncRoot();
  }

  /**
   * Group commit of directory fsyncs: a caller joins the next fsync that starts after its rename.
   * While one runs (it may have started before this caller's rename), one more is queued for all
   * who arrive meanwhile, so N concurrent puts cost about two directory fsyncs instead of N.
   */
  private syncRoot(): Promise<void> {
    if (!this.dirSyncRunning) {
      this.dirSyncRunning = this.fsyncRoot().finally(() => {
        this.dirSyncRunning = null;
      });
      return this.dirSyncRunning;
    }
    this.dirSyncQueued ??= this.dirSyncRunning.catch(() => undefined).then(() => {
      this.dirSyncQueued = null;
      return this.syncRoot();
    });
    return this.dirSyncQueued;
  }

  /** The directory descriptor stays open: each fsync is one call, not open + fsync + close. */
  private rootFd: Promise<number> | null = null;

  private async fsyncRoot(): Promise<void> {
    this.rootFd ??= openFile(this.root, 'r').then((fd) => {
      dirDescriptors.register(this, fd, this);
      return fd;
    });
    const opened = this.rootFd;
    try {
      await fsyncFd(await opened);
    } catch {
      // A stale descriptor (the directory was replaced): reopen once; a second failure propagates.
      this.rootFd = null;
      await opened.then((fd) => {
        dirDescriptors.unregister(this);
        close(fd, () => {});
      }, () => {});
      await fsyncDir(this.root);
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return asUint8Array(await fs.readFile(this.pathOf(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new LedgerError('blob_missing', `blob ${key} is missing from ${this.root}`);
      }
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.pathOf(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  /** File names back to keys; temp files of writes in flight (`….tmp-…`) are not blobs yet. */
  async list(prefix = ''): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names.filter((name) => /\.alf(-delta)?$/.test(name)).map((name) => name.split('~').join('/'))
      .filter((key) => key.startsWith(prefix)).sort();
  }
}
