import { crc32 } from 'node:zlib';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { entryNameProblem, isDirectoryName } from './entry-names';
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
  const next = entryReader(zip);
  const contents: ZipContents = { files: new Map(), directories: [] };
  const budget = { total: 0 };
  for (let entry = await next(); entry !== null; entry = await next()) {
    const name = checkedName(entry, contents);
    if (isDirectoryName(name)) {
      await checkDirectoryEntry(zip, entry, name);
      contents.directories.push(name);
      continue;
    }
    contents.files.set(name, await inflateEntry(zip, entry, name, limits, budget));
  }
  return contents;
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

async function openZip(bytes: Uint8Array, limits: ArchiveLimits): Promise<yauzl.ZipFile> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    // decodeStrings:false so that names reach our own checks verbatim (yauzl would
    // otherwise rewrite backslashes to `/` and hide the problem).
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, file) => {
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
async function checkDirectoryEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, name: string): Promise<void> {
  const carriesData = () =>
    new ArchiveError('unsafe_path', `entry ${JSON.stringify(name)} ends with "/" but carries file data`);
  if (entry.uncompressedSize !== 0) throw carriesData();
  const noData: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, maxEntryUncompressedBytes: 0, maxTotalUncompressedBytes: 0 };
  await inflateEntry(zip, entry, name, noData, { total: 0 }).catch((err: unknown) => {
    throw err instanceof ArchiveError && err.code === 'too_large' ? carriesData() : err;
  });
}

function inflateEntry(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  name: string,
  limits: ArchiveLimits,
  budget: { total: number },
): Promise<Uint8Array> {
  const label = JSON.stringify(name);
  const cap = Math.min(limits.maxEntryUncompressedBytes, limits.maxTotalUncompressedBytes - budget.total);
  if (entry.uncompressedSize > cap) {
    return Promise.reject(tooLarge(label, entry.uncompressedSize, limits, budget));
  }
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(new ArchiveError('not_a_zip', `cannot read entry ${label}: ${err?.message}`));
      collect(stream, entry, label, cap, (size) => tooLarge(label, size, limits, budget)).then((data) => {
        budget.total += data.byteLength;
        resolve(data);
      }, reject);
    });
  });
}

function collect(
  stream: Readable,
  entry: yauzl.Entry,
  label: string,
  cap: number,
  overCap: (size: number) => ArchiveError,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let crc = 0;
    let settled = false;
    const fail = (error: ArchiveError) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Counted on the inflated bytes themselves: a header that lies cannot raise the cap.
      if (size > cap) return fail(overCap(size));
      crc = crc32(chunk, crc);
      chunks.push(chunk);
    });
    stream.on('error', (err: Error) => fail(streamError(label, err)));
    stream.on('end', () => {
      if (settled) return;
      if (crc >>> 0 !== entry.crc32 >>> 0) return fail(new ArchiveError('not_a_zip', `entry ${label} fails its CRC-32 check`));
      settled = true;
      resolve(new Uint8Array(Buffer.concat(chunks, size)));
    });
  });
}

function streamError(label: string, err: Error): ArchiveError {
  if (/too many bytes/.test(err.message)) {
    return new ArchiveError('too_large', `entry ${label} inflates past its declared size (${err.message})`);
  }
  return new ArchiveError('not_a_zip', `corrupt data in entry ${label}: ${err.message}`);
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
