import zlib from 'node:zlib';
import { deflateSync } from 'fflate';
import yazl from 'yazl';
import { asUint8Array } from '../bytes';
import { deflatedAhead, LARGE_LEVEL, SMALL_BYTES, SMALL_LEVEL, type StreamedDeflate } from './deflate-ahead';
import { fileNameProblem } from './entry-names';
import { useNativeCrc32 } from './native-crc32';
import { ArchiveError } from './types';

/** One member to write: its archive path and bytes. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
  /** Stored as it is (by default every member is deflated, as the reference writer does). */
  store?: boolean;
  /** A Deflate of a large member's bytes started while they were made; used if it holds exactly `data` (else deflated here). */
  ahead?: StreamedDeflate;
}

/**
 * 2000-01-01 00:00:00 in *local* time: yazl encodes DOS timestamps from local-time
 * fields, so building the date from local fields makes the stored value the same in
 * every time zone. The Info-ZIP UTC field is disabled (`forceDosTimestamp`) for the same reason.
 */
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);
useNativeCrc32();
const FILE_MODE = 0o100644;
// Members below SMALL_BYTES are deflated by fflate at SMALL_LEVEL (deterministic bytes for a fixed
// level, and no zlib instance per member): in this thread, or ahead in a worker (deflate-ahead.ts);
// larger ones by zlib on the thread pool.

/**
 * Writes the entries, in the order given, as a ZIP whose bytes depend only on the entries: every
 * member deflated unless `store` (as the reference writer does), fixed mtime and mode, no comments,
 * no platform-dependent fields.
 */
export function writeZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const seen = new Set<string>();
  for (const { name } of entries) {
    const problem = fileNameProblem(name);
    if (problem) throw new ArchiveError('unsafe_path', `cannot write entry: ${problem}: ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new ArchiveError('duplicate_entry', `cannot write entry twice: ${JSON.stringify(name)}`);
    seen.add(name);
  }
  const zip = new yazl.ZipFile();
  for (const { name, data, store, ahead } of entries) {
    // A zlib instance per member costs hundreds of KB of state, which dominated writing workspaces
    // of many small files: those are deflated by fflate, synchronously. Large ones use zlib at
    // level 1: memory JSONL compresses nearly as well as at level 6, at a fraction of the CPU.
    const small = data.byteLength < SMALL_BYTES;
    const compressionLevel = store ? 0 : small ? SMALL_LEVEL : LARGE_LEVEL;
    const add = () => zip.addBuffer(Buffer.from(data.buffer, data.byteOffset, data.byteLength), name, {
      mtime: FIXED_MTIME, mode: FILE_MODE, compressionLevel, forceDosTimestamp: true,
    });
    if (compressionLevel === 0) add();
    else if (small) withDeflate(smallDeflate(data), add);
    else withDeflate(ahead ? streamedDeflate(ahead, data.byteLength) : chunkedDeflate(data.byteLength), add);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(asUint8Array(Buffer.concat(chunks))));
    zip.end();
  });
}

/** What yazl calls to deflate a member (`zlib.deflateRaw(buffer, { level }, callback)`). */
type DeflateRaw = (buffer: Buffer, options: zlib.ZlibOptions, callback: (error: Error | null, result: Buffer) => void) => void;
const zlibModule = zlib as unknown as { deflateRaw: DeflateRaw };

/**
 * The output chunk a member's Deflate is given: a quarter of its size (level 1 shrinks memory
 * JSONL about tenfold, so one chunk holds it all), between 64 KiB and 64 MiB.
 */
export function deflateChunkSize(byteLength: number): number {
  return Math.min(64 << 20, Math.max(64 << 10, Math.ceil(byteLength / 4)));
}

/**
 * Runs `add` — one synchronous `addBuffer` of a member yazl deflates — with zlib's `deflateRaw`
 * replaced by `deflate`: fflate for a small member, zlib given an output chunk sized to the member
 * for a large one.
 *
 * yazl deflates with zlib's asynchronous one-shot API and its default 16 KiB output chunk: the work
 * goes from the thread pool back through this thread's event loop after every 16 KiB of output,
 * so while this thread is busy the Deflate waits. A sync deflates its next base (32 MB of JSONL
 * for a 50,000-record store, ~3 MB deflated: ~180 round trips) while its ingest transaction holds
 * this thread; the Deflate then finished ~80 ms after the transaction instead of during it.
 * With one chunk it runs through on the thread pool. The deflated bytes do not depend on the
 * chunk size. `addBuffer` only starts the Deflate, synchronously, so the wrapper is in place for
 * that call alone: nothing else runs meanwhile.
 */
function withDeflate(deflate: (zlibDeflate: DeflateRaw) => DeflateRaw, add: () => void): void {
  const deflateRaw = zlibModule.deflateRaw;
  zlibModule.deflateRaw = deflate(deflateRaw);
  try {
    add();
  } finally {
    zlibModule.deflateRaw = deflateRaw;
  }
}

/** zlib's `deflateRaw` with one output chunk sized to the member (see {@link withDeflate}). */
function chunkedDeflate(byteLength: number): (zlibDeflate: DeflateRaw) => DeflateRaw {
  const chunkSize = deflateChunkSize(byteLength);
  return (zlibDeflate) => (buffer, options, callback) => zlibDeflate(buffer, { ...options, chunkSize }, callback);
}

/**
 * The Deflate `ahead` ran of this member while its bytes were made, when it holds exactly the bytes
 * yazl asks to deflate, at its level, and did not fail; else zlib's, as {@link chunkedDeflate}.
 */
function streamedDeflate(ahead: StreamedDeflate, byteLength: number): (zlibDeflate: DeflateRaw) => DeflateRaw {
  const here = chunkedDeflate(byteLength);
  return (zlibDeflate) => (buffer, options, callback) => {
    const fallback = () => here(zlibDeflate)(buffer, options, callback);
    if (!ahead.holds(buffer, options.level ?? zlib.constants.Z_DEFAULT_COMPRESSION)) {
      ahead.abort();
      return fallback();
    }
    ahead.deflated().then((out) => (out ? callback(null, Buffer.from(out.buffer, out.byteOffset, out.byteLength)) : fallback()), fallback);
  };
}

/**
 * fflate's raw Deflate of `data`: the one started ahead for it in a worker when there is one
 * (called back once it is done), else here and called back at once (yazl then takes the member as
 * it takes a stored one).
 */
const smallDeflate = (data: Uint8Array) => (): DeflateRaw => (buffer, options, callback) => {
  const level = (options.level ?? SMALL_LEVEL) as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  const here = () => {
    const out = deflateSync(buffer, { level });
    callback(null, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  };
  const started = deflatedAhead(data, level);
  if (!started) return here();
  started.then((out) => (out ? callback(null, Buffer.from(out.buffer, out.byteOffset, out.byteLength)) : here()), here);
};

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Pretty JSON document bytes, as the reference writes layer files and manifests. */
export function jsonDocument(value: unknown): Uint8Array {
  return utf8(JSON.stringify(value, null, 2));
}
