/**
 * The files of a filesystem blob store and how to read a blob back from them, synchronously (the
 * store, the rebuild's helper thread and the bench all read through this; nothing else may open
 * a blob file). A key `a/b.alf` lives in `<root>/a~b.alf` stored whole (every blob written before
 * packing existed, group starts, anything packing did not make smaller or could not verify) or
 * in `<root>/a~b.alf.packed` (packed-blob.ts) against earlier blobs of its group.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isLedgerError, LedgerError } from './errors';
import { decodePackedHeader, sha256Of, unpack } from './packed-blob';

export const PACKED_SUFFIX = '.packed';
/** Marker of a delete in progress: no new blob may take this key as a base (blob-store.ts). */
export const DELETING_SUFFIX = '.deleting';
/** A blob file's name (either form) back to its flat name: `a~b.alf(-delta)`. */
export const BLOB_FILE = /^(.+\.alf(?:-delta)?)(?:\.packed)?$/;

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws unless `key` is a safe relative blob name with an `.alf` / `.alf-delta` extension. */
export function assertBlobKey(key: string): void {
  const segments = key.split('/');
  const ok = segments.length >= 1 && segments.every((s) => SEGMENT.test(s) && s !== '..')
    && (key.endsWith('.alf') || key.endsWith('.alf-delta'));
  if (!ok) throw new LedgerError('invalid_input', `bad blob key "${key}": expected safe path segments ending in .alf or .alf-delta`);
}

/** The whole-form file of `key`. */
export function wholePath(root: string, key: string): string {
  assertBlobKey(key);
  return path.join(root, key.split('/').join('~'));
}

/** Recently read or written bases, by key; bounded by count and bytes. */
export class BaseCache {
  private readonly map = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxEntries = 256, private readonly maxBytes = 16 << 20) {}

  get(key: string): Uint8Array | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  set(key: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.maxBytes / 4) return;
    this.drop(key);
    this.map.set(key, bytes);
    this.bytes += bytes.byteLength;
    for (const [old, value] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.map.delete(old);
      this.bytes -= value.byteLength;
    }
  }

  drop(key: string): void {
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      this.bytes -= old.byteLength;
    }
  }
}

const missing = (root: string, key: string) => new LedgerError('blob_missing', `blob ${key} is missing from ${root}`);
const isEnoent = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Reads blobs of one store root, whole or packed; every packed read is checked by sha256. */
export class BlobFiles {
  readonly cache = new BaseCache();

  constructor(readonly root: string) {}

  /** The bytes put under `key`; `blob_missing` when neither form exists, `blob_corrupt` when a packed one cannot be rebuilt. */
  read(key: string, packedFirst = false): Uint8Array {
    // A base just packed by this process is most likely packed itself: one failed open fewer.
    if (packedFirst && this.cache.get(key)) {
      try {
        return this.readPacked(key, 0, true);
      } catch (error) {
        if (!isLedgerError(error, 'blob_missing')) throw error;
      }
    }
    const whole = wholePath(this.root, key);
    try {
      return new Uint8Array(fs.readFileSync(whole));
    } catch (error) {
      if (!isEnoent(error)) throw error;
    }
    return this.readPacked(key, 0);
  }

  /**
   * `trustCache` (packing only): the cached bytes stand for the file when its header records
   * their sha256. A read for a caller always inflates its own file, so damage to it shows.
   */
  private readPacked(key: string, depth: number, trustCache = false): Uint8Array {
    let file: Buffer;
    try {
      file = fs.readFileSync(wholePath(this.root, key) + PACKED_SUFFIX);
    } catch (error) {
      if (!isEnoent(error)) throw error;
      // Materialized meanwhile (whole written, then the packed form removed): read that.
      try {
        return new Uint8Array(fs.readFileSync(wholePath(this.root, key)));
      } catch (again) {
        if (isEnoent(again)) throw missing(this.root, key);
        throw again;
      }
    }
    const damaged = (why: string, cause?: unknown) => new LedgerError('blob_corrupt', `blob ${key} in ${this.root} cannot be read back: ${why}`, {}, { cause });
    if (depth > 1024) throw damaged('its chain of bases is too deep');
    let header;
    try {
      header = decodePackedHeader(key, file);
    } catch (error) {
      throw damaged((error as Error).message, error);
    }
    // Read or put a moment ago: the cached bytes, when they are the ones this file records.
    const known = trustCache ? this.cache.get(key) : undefined;
    if (known && known.byteLength === header.size && sha256Of(known).equals(header.sha256)) return known;
    // First with the cached bases; a result that misses its sha256 is retried from the files.
    for (const useCache of [true, false]) {
      const bases = header.bases.map((base) => {
        const cached = useCache ? this.cache.get(base) : undefined;
        if (cached) return cached;
        try {
          const bytes = this.readBase(base, depth + 1);
          this.cache.set(base, bytes);
          return bytes;
        } catch (error) {
          throw damaged(`its base ${base} cannot be read`, error);
        }
      });
      try {
        const out = new Uint8Array(unpack(file, header, bases));
        this.cache.set(key, out);
        return out;
      } catch (error) {
        for (const base of header.bases) this.cache.drop(base);
        if (!useCache) throw damaged((error as Error).message, error);
      }
    }
    throw damaged('unreachable');
  }

  private readBase(key: string, depth: number): Uint8Array {
    try {
      return new Uint8Array(fs.readFileSync(wholePath(this.root, key)));
    } catch (error) {
      if (!isEnoent(error)) throw error;
    }
    return this.readPacked(key, depth);
  }
}
