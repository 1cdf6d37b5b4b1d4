/**
 * The log of the client-state store (`{agent}-state-<generation>.log`): raw file bytes, record
 * lines and record tables, appended and never rewritten in place. The index says what of it is
 * live; what a killed sync appended beyond the index's length is cut off by the next append.
 * Compaction writes a new generation holding only what is live (write-store.ts).
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import { SMALL_FILE } from '../state';
import { StoreDamaged } from './errors';
import type { Ref } from './index-file';

/** Reads ranges of a log synchronously (a sync reads a few lines and tables of it, not the whole). */
export class LogReader {
  private fd: number | null = null;

  constructor(readonly file: string, private readonly length: number) {}

  read(ref: Ref): Buffer {
    if (ref.off + ref.len > this.length) throw new StoreDamaged(`${this.file}: a ref past the end of the log`);
    this.fd ??= this.open();
    const out = Buffer.allocUnsafe(ref.len);
    for (let at = 0; at < ref.len; ) {
      const n = readSync(this.fd, out, at, ref.len - at, ref.off + at);
      if (n === 0) throw new StoreDamaged(`${this.file}: shorter than its index says`);
      at += n;
    }
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (error) {
      throw new StoreDamaged(`${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (fstatSync(fd).size < this.length) {
      closeSync(fd);
      throw new StoreDamaged(`${this.file}: shorter than its index says`);
    }
    return fd;
  }
}

/** Blocks to append at `start` (the index's log length), each given its ref as it is added. */
export class LogAppender {
  private readonly chunks: Uint8Array[] = [];
  private end: number;

  constructor(readonly start: number) {
    this.end = start;
  }

  get length(): number {
    return this.end;
  }

  get appended(): number {
    return this.end - this.start;
  }

  append(bytes: Uint8Array): Ref {
    const ref = { off: this.end, len: bytes.byteLength };
    if (bytes.byteLength > 0) this.chunks.push(bytes);
    this.end += bytes.byteLength;
    return ref;
  }

  /**
   * Writes the blocks at `start` of `file` (created if need be; anything after `start` cut off
   * first: what a killed sync left there) and flushes them to disk, before any index names them.
   */
  async writeTo(file: string): Promise<void> {
    // What a sync of a few changed files appends is small: written with synchronous calls (see
    // SMALL_FILE); a new generation or a large append stays on the thread pool.
    if (this.appended <= SMALL_FILE) {
      this.writeSync(file);
      return;
    }
    const handle = await fs.open(file, this.start === 0 ? 'w' : 'r+', 0o600);
    try {
      await handle.truncate(this.start);
      let at = this.start;
      // A few large writes: writev takes at most IOV_MAX (1024) buffers at a time.
      for (let k = 0; k < this.chunks.length; k += 1024) {
        const batch = this.chunks.slice(k, k + 1024);
        const total = batch.reduce((n, b) => n + b.byteLength, 0);
        const written = (await handle.writev(batch, at)).bytesWritten;
        if (written < total) {
          // A short write (rare): the rest as one buffer.
          const rest = Buffer.concat(batch).subarray(written);
          for (let from = 0; from < rest.length; ) from += (await handle.write(rest, from, rest.length - from, at + written + from)).bytesWritten;
        }
        at += total;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** writeTo's steps, synchronously, the blocks as one buffer. */
  private writeSync(file: string): void {
    const fd = openSync(file, this.start === 0 ? 'w' : 'r+', 0o600);
    try {
      ftruncateSync(fd, this.start);
      const all = Buffer.concat(this.chunks);
      for (let from = 0; from < all.length; ) from += writeSync(fd, all, from, all.length - from, this.start + from);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
