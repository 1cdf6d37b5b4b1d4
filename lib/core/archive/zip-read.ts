import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, inflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';
import yauzl from 'yauzl';
import { entryNameProblem, isDirectoryName } from './entry-names';
import { asUint8Array } from '../bytes';
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './types';

/** The members of a ZIP read into memory, in central-directory order. */
export interface ZipContents {
  /** File entries, name → inflated bytes. */
  files: Map<string, Uint8Array>;
  /** Directory entries (names ending with `/`); they carry no data. */
  directories: string[];
}

/** Fills unset caps with the defaults. */
export function resolveLimits(limits?: Partial<ArchiveLimits>): ArchiveLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
}

/**
 * Reads every member of an untrusted ZIP into memory. Names are checked before any
 * data is inflated; sizes are capped on the bytes actually inflated, so an entry that
 * lies about its size is stopped at the cap (or at its declared size) rather than trusted.
 */
export async function readZip(bytes: Uint8Array, limits: ArchiveLimits): Promise<ZipContents> {
  const zip = await openZip(bytes, limits);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const next = entryReader(zip);
  const contents: ZipContents = { files: new Map(), directories: [] };
  const budget = { total: 0 };
  for (let entry = await next(); entry !== null; entry = await next()) {
    const name = checkedName(entry, contents);
    if (isDirectoryName(name)) {
      await checkDirectoryEntry(zip, buffer, entry, name);
      contents.directories.push(name);
      continue;
    }
    contents.files.set(name, await inflateEntry(zip, buffer, entry, name, limits, budget));
  }
  return contents;
}

/**
 * One member's inflated bytes, or null when the archive has none of that name: the central
 * directory is read up to it (names checked as `readZip` checks them) and only that member is
 * inflated, with the same caps. For a small member of a large archive (a stored snapshot's
 * `manifest.json`), without inflating the rest.
 */
export async function readZipMember(bytes: Uint8Array, member: string, limits: ArchiveLimits): Promise<Uint8Array | null> {
  const zip = await openZip(bytes, limits);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const next = entryReader(zip);
  const seen: ZipContents = { files: new Map(), directories: [] };
  // Left unread past the member, as readZip leaves it at the end: the reader holds only `bytes`.
  for (let entry = await next(); entry !== null; entry = await next()) {
    const name = checkedName(entry, seen);
    if (isDirectoryName(name)) {
      seen.directories.push(name);
      continue;
    }
    if (name === member) return inflateEntry(zip, buffer, entry, name, limits, { total: 0 });
    seen.files.set(name, new Uint8Array());
  }
  return null;
}

/** Names of every member, checked for safety, without inflating any data. */
export async function listZipNames(bytes: Uint8Array, limits: ArchiveLimits): Promise<string[]> {
  const zip = await openZip(bytes, limits);
  const next = entryReader(zip);
  const seen: ZipContents = { files: new Map(), directories: [] };
  for (let entry = await next(); entry !== null; entry = await next()) {
    const name = checkedName(entry, seen);
    if (isDirectoryName(name)) seen.directories.push(name);
    else seen.files.set(name, new Uint8Array());
  }
  return [...seen.directories, ...seen.files.keys()];
}

/**
 * yauzl's reader of an archive held in memory. yauzl's own (`fromBuffer`) answers every read —
 * two per entry of the central directory, one per local header — from `setImmediate`: a turn of
 * the event loop each, so reading an archive of a few hundred members took a thousand turns (about
 * 25 ms of a sync's base, 500 raw files), and none at all while this thread was busy elsewhere.
 * This one copies the bytes at once and answers on the next tick: still asynchronously, as
 * `fs.read` would, without waiting for the event loop.
 */
class MemoryReader extends yauzl.RandomAccessReader {
  constructor(private readonly source: Buffer) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from([this.source.subarray(start, end)]);
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    if (!(offset >= 0 && offset <= buffer.length) || !(position >= 0)) {
      process.nextTick(callback, new RangeError(`read outside the buffer: offset ${offset}, position ${position}`));
      return;
    }
    const n = Math.max(0, Math.min(length, buffer.length - offset, this.source.length - position));
    if (n > 0) this.source.copy(buffer, offset, position, position + n);
    process.nextTick(callback, null, n);
  }
}

async function openZip(bytes: Uint8Array, limits: ArchiveLimits): Promise<yauzl.ZipFile> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    // decodeStrings:false so that names reach our own checks verbatim (yauzl would
    // otherwise rewrite backslashes to `/` and hide the problem).
    const options = { lazyEntries: true, decodeStrings: false, validateEntrySizes: true };
    yauzl.fromRandomAccessReader(new MemoryReader(buffer), buffer.length, options, (err, file) => {
      if (err || !file) reject(new ArchiveError('not_a_zip', `not a ZIP archive: ${err?.message ?? 'unreadable'}`));
      else resolve(file);
    });
  });
  if (zip.entryCount > limits.maxEntries) {
    throw new ArchiveError('too_many_entries', `archive has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`);
  }
  return zip;
}

/** Turns yauzl's event interface into "give me the next entry, or null at the end". */
function entryReader(zip: yauzl.ZipFile): () => Promise<yauzl.Entry | null> {
  let waiting: { resolve: (entry: yauzl.Entry | null) => void; reject: (err: Error) => void } | null = null;
  let failure: Error | null = null;
  zip.on('entry', (entry: yauzl.Entry) => waiting?.resolve(entry));
  zip.on('end', () => waiting?.resolve(null));
  zip.on('error', (err: Error) => {
    failure = new ArchiveError('not_a_zip', `corrupt ZIP archive: ${err.message}`);
    waiting?.reject(failure);
  });
  return () =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      waiting = { resolve, reject };
      zip.readEntry();
    });
}

function checkedName(entry: yauzl.Entry, seen: ZipContents): string {
  const raw = (entry as unknown as { fileNameRaw: Buffer }).fileNameRaw;
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
  const problem = entryNameProblem(name);
  if (problem) throw new ArchiveError('unsafe_path', `${problem}: ${JSON.stringify(name)}`);
  if (seen.files.has(name) || seen.directories.includes(name)) {
    throw new ArchiveError('duplicate_entry', `duplicate entry name: ${JSON.stringify(name)}`);
  }
  if (entry.isEncrypted()) throw new ArchiveError('not_a_zip', `entry ${JSON.stringify(name)} is encrypted`);
  return name;
}

/** A directory entry must carry no data, whatever its header claims. */
async function checkDirectoryEntry(zip: yauzl.ZipFile, buffer: Buffer, entry: yauzl.Entry, name: string): Promise<void> {
  const carriesData = () =>
    new ArchiveError('unsafe_path', `entry ${JSON.stringify(name)} ends with "/" but carries file data`);
  if (entry.uncompressedSize !== 0) throw carriesData();
  const noData: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, maxEntryUncompressedBytes: 0, maxTotalUncompressedBytes: 0 };
  await inflateEntry(zip, buffer, entry, name, noData, { total: 0 }).catch((err: unknown) => {
    throw err instanceof ArchiveError && err.code === 'too_large' ? carriesData() : err;
  });
}

const inflateRawAsync = promisify(inflateRaw) as (data: Uint8Array, options: ZlibOptions) => Promise<Buffer>;

/** Members at least this large (compressed) are inflated on the thread pool. */
const ASYNC_INFLATE_BYTES = 1 << 20;

/**
 * Inflates one member from the in-memory archive: yauzl locates the data, zlib inflates it with
 * `maxOutputLength`, so a bomb stops at the cap instead of filling memory. Small members are
 * inflated synchronously (a thread-pool round trip per entry dominated ingest of small deltas);
 * large ones (a big store's memory partition) on the thread pool, so a caller can overlap them
 * with other work (a sync reads its base while it exports the workspace).
 */
async function inflateEntry(
  zip: yauzl.ZipFile,
  buffer: Buffer,
  entry: yauzl.Entry,
  name: string,
  limits: ArchiveLimits,
  budget: { total: number },
): Promise<Uint8Array> {
  const label = JSON.stringify(name);
  const cap = Math.min(limits.maxEntryUncompressedBytes, limits.maxTotalUncompressedBytes - budget.total);
  if (entry.uncompressedSize > cap) throw tooLarge(label, entry.uncompressedSize, limits, budget);
  const header = await new Promise<{ fileDataStart: number }>((resolve, reject) =>
    zip.readLocalFileHeader(entry, { minimal: true }, (err, local) =>
      err || !local ? reject(new ArchiveError('not_a_zip', `cannot read entry ${label}: ${err?.message}`)) : resolve(local),
    ),
  );
  const end = header.fileDataStart + entry.compressedSize;
  if (end > buffer.length) throw new ArchiveError('not_a_zip', `entry ${label} runs past the end of the archive`);
  const compressed = buffer.subarray(header.fileDataStart, end);
  let data: Buffer;
  if (entry.compressionMethod === 0) {
    data = compressed;
  } else if (entry.compressionMethod === 8) {
    try {
      // Counted on the inflated bytes themselves: a header that lies cannot raise the cap.
      // One byte past the declared size is enough to prove a header lies; never past the cap.
      const limit = Math.min(cap, entry.uncompressedSize) + 1;
      // Output in one buffer of the declared size where that is plausible (zlib's default 16 KiB
      // chunks cost a copy of every member and thousands of allocations on large partitions); the
      // first buffer is never more than 64× the compressed bytes, so a lying header cannot make
      // us allocate much ahead of the data.
      const chunkSize = Math.max(64 * 1024, Math.min(limit, compressed.length * 64));
      const options = { maxOutputLength: limit, chunkSize };
      data = compressed.length >= ASYNC_INFLATE_BYTES ? await inflateRawAsync(compressed, options) : inflateRawSync(compressed, options);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw pastDeclared(label, entry.uncompressedSize);
      throw new ArchiveError('not_a_zip', `corrupt data in entry ${label}: ${(err as Error).message}`);
    }
  } else {
    throw new ArchiveError('not_a_zip', `entry ${label} uses unsupported compression method ${entry.compressionMethod}`);
  }
  if (data.length > cap) throw tooLarge(label, data.length, limits, budget);
  if (data.length > entry.uncompressedSize) throw pastDeclared(label, entry.uncompressedSize);
  if (data.length < entry.uncompressedSize) {
    throw new ArchiveError('not_a_zip', `entry ${label} inflates to ${data.length} bytes but declares ${entry.uncompressedSize}`);
  }
  if (crc32(data) >>> 0 !== entry.crc32 >>> 0) throw new ArchiveError('not_a_zip', `entry ${label} fails its CRC-32 check`);
  budget.total += data.length;
  return asUint8Array(data);
}

function pastDeclared(label: string, declared: number): ArchiveError {
  return new ArchiveError('too_large', `entry ${label} inflates past its declared size of ${declared} bytes`);
}

function tooLarge(label: string, size: number, limits: ArchiveLimits, budget: { total: number }): ArchiveError {
  if (size > limits.maxEntryUncompressedBytes) {
    return new ArchiveError(
      'too_large',
      `entry ${label} inflates to more than the per-entry limit of ${limits.maxEntryUncompressedBytes} bytes`,
    );
  }
  return new ArchiveError(
    'too_large',
    `archive inflates to more than the total limit of ${limits.maxTotalUncompressedBytes} bytes (at entry ${label}, ${budget.total} bytes before it)`,
  );
}
