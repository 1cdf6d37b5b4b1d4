import zlib from 'node:zlib';
import { deflateSync } from 'fflate';
import yazl from 'yazl';
import { asUint8Array } from '../bytes';
import { deflatedAhead, LARGE_LEVEL, SMALL_BYTES, SMALL_LEVEL, type StreamedDeflate } from './deflate-ahead';
import { fileNameProblem } from './entry-names';
import { centralRecord, endRecords, localHeader, type DosDateTime, type ZipMember } from './zip-records';
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
  return writesThroughYazl(entries) ? writeZipWithYazl(entries) : writeZipDirect(entries);
}

/**
 * A member's level and its deflate (what yazl is handed as zlib's `deflateRaw`): a zlib instance per
 * member costs hundreds of KB of state, which dominated writing workspaces of many small files:
 * those are deflated by fflate, synchronously (or ahead, in the worker). Large ones use zlib at
 * level 1: memory JSONL compresses nearly as well as at level 6, at a fraction of the CPU.
 */
function memberDeflate({ data, store, ahead }: ZipEntry): { level: number; deflate: ((zlibDeflate: DeflateRaw) => DeflateRaw) | null } {
  const small = data.byteLength < SMALL_BYTES;
  const level = store ? 0 : small ? SMALL_LEVEL : LARGE_LEVEL;
  if (level === 0) return { level, deflate: null };
  return { level, deflate: small ? smallDeflate(data) : ahead ? streamedDeflate(ahead, data.byteLength) : chunkedDeflate(data.byteLength) };
}

/**
 * The archive assembled here, without yazl's streams: its bytes are exactly yazl's for these
 * options (the members in order, each a local header and its data with sizes and CRC-32 known up
 * front, so no data descriptor; then the central directory and its end record, DOS timestamps
 * only). yazl moved each member through its output stream a turn of the event loop at a time:
 * ~0.1 ms a member, the most of writing a delta of a few hundred changed files.
 * zip-write.test.ts compares the two writers' bytes over random members.
 */
async function writeZipDirect(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const methods = entries.map((entry) => memberDeflate(entry));
  const bodies = await Promise.all(entries.map(({ data }, i) => {
    const { level, deflate } = methods[i]!;
    const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (deflate === null) return buffer;
    return new Promise<Buffer>((resolve, reject) => {
      deflate(zlibModule.deflateRaw)(buffer, { level }, (error, result) => (error ? reject(error) : resolve(result)));
    });
  }));
  const out: Buffer[] = [];
  const members: ZipMember[] = [];
  let offset = 0;
  entries.forEach(({ name, data }, i) => {
    const body = bodies[i]!;
    const member = { name: Buffer.from(name), crc: nativeCrc32!(data), method: methods[i]!.deflate === null ? 0 : 8, compressed: body.byteLength, size: data.byteLength, offset };
    const header = localHeader(member, DOS);
    out.push(header, member.name, body);
    offset += header.byteLength + member.name.byteLength + body.byteLength;
    members.push(member);
  });
  const records = members.map((member) => centralRecord(member, DOS, YAZL_SPEC));
  const size = records.reduce((n, r) => n + r.byteLength, 0);
  return asUint8Array(Buffer.concat([...out, ...records, endRecords(members.length, offset, size)]));
}

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
/** The spec version yazl says it made an archive by: 6.3. */
const YAZL_SPEC = 63;
/** FIXED_MTIME in DOS fields, from its local-time fields as yazl computes them. */
const DOS: DosDateTime = {
  date: FIXED_MTIME.getDate() | ((FIXED_MTIME.getMonth() + 1) << 5) | ((FIXED_MTIME.getFullYear() - 1980) << 9),
  time: Math.floor(FIXED_MTIME.getSeconds() / 2) | (FIXED_MTIME.getMinutes() << 5) | (FIXED_MTIME.getHours() << 11),
};
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * Whether the archive goes through yazl: without Node's native CRC-32 (before 20.15), or when it
 * may need ZIP64 fields (65,535 members or more, or an offset past 4 GiB, reckoned with a bound on
 * Deflate's growth of incompressible input), which the direct writer does not write.
 */
export function writesThroughYazl(entries: readonly Pick<ZipEntry, 'name' | 'data'>[]): boolean {
  if (typeof nativeCrc32 !== 'function' || entries.length >= 0xffff) return true;
  let bound = END_RECORD;
  for (const { name, data } of entries) bound += LOCAL_HEADER + CENTRAL_HEADER + 6 * name.length + data.byteLength + (data.byteLength >> 8) + 64;
  return bound >= 0xfffffffe;
}

/** The same archive through yazl (see writesThroughYazl). */
export function writeZipWithYazl(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    const { data, name } = entry;
    const { level: compressionLevel, deflate } = memberDeflate(entry);
    const add = () => zip.addBuffer(Buffer.from(data.buffer, data.byteOffset, data.byteLength), name, {
      mtime: FIXED_MTIME, mode: FILE_MODE, compressionLevel, forceDosTimestamp: true,
    });
    if (deflate === null) add();
    else withDeflate(deflate, add);
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
