import zlib from 'node:zlib';
import yazl from 'yazl';
import { asUint8Array } from '../bytes';
import { fileNameProblem } from './entry-names';
import { useNativeCrc32 } from './native-crc32';
import { ArchiveError } from './types';

/** One member to write: its archive path and bytes. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
  /** Stored as it is, whatever its size (by default members of 16 KiB or more are deflated). */
  store?: boolean;
}

/**
 * 2000-01-01 00:00:00 in *local* time: yazl encodes DOS timestamps from local-time
 * fields, so building the date from local fields makes the stored value the same in
 * every time zone. The Info-ZIP UTC field is disabled (`forceDosTimestamp`) for the same reason.
 */
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);
useNativeCrc32();
const FILE_MODE = 0o100644;
const STORE_BELOW_BYTES = 16 * 1024;

/**
 * Writes the entries, in the order given, as a ZIP (Deflate from 16 KiB up unless `store`, stored below) whose bytes depend only on
 * the entries: fixed mtime and mode, no comments, no platform-dependent fields.
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
  for (const { name, data, store } of entries) {
    // Small members are stored: each deflated member costs a zlib instance (hundreds of KB of
    // state), which dominated writing workspaces of many small files. Large ones use level 1:
    // memory JSONL compresses nearly as well as at level 6, at a fraction of the CPU.
    const compressionLevel = store || data.byteLength < STORE_BELOW_BYTES ? 0 : 1;
    const add = () => zip.addBuffer(Buffer.from(data.buffer, data.byteOffset, data.byteLength), name, {
      mtime: FIXED_MTIME, mode: FILE_MODE, compressionLevel, forceDosTimestamp: true,
    });
    if (compressionLevel === 0) add();
    else withDeflateChunk(data.byteLength, add);
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
 * given an output chunk sized to the member.
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
function withDeflateChunk(byteLength: number, add: () => void): void {
  const deflateRaw = zlibModule.deflateRaw;
  const chunkSize = deflateChunkSize(byteLength);
  zlibModule.deflateRaw = (buffer, options, callback) => deflateRaw(buffer, { ...options, chunkSize }, callback);
  try {
    add();
  } finally {
    zlibModule.deflateRaw = deflateRaw;
  }
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Pretty JSON document bytes, as the reference writes layer files and manifests. */
export function jsonDocument(value: unknown): Uint8Array {
  return utf8(JSON.stringify(value, null, 2));
}
