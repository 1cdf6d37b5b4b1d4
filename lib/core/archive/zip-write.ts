import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';
import yazl from 'yazl';
import { fileNameProblem } from './entry-names';
import { ArchiveError } from './types';

/** One member to write: its archive path and bytes. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/**
 * 2000-01-01 00:00:00 in *local* time: yazl encodes DOS timestamps from local-time
 * fields, so building the date from local fields makes the stored value the same in
 * every time zone. The Info-ZIP UTC field is disabled (`forceDosTimestamp`) for the same reason.
 */
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;
const STORE_BELOW_BYTES = 16 * 1024;

/**
 * Writes the entries, in the order given, as a ZIP (Deflate above 16 KiB, stored below) whose bytes depend only on
 * the entries: fixed mtime and mode, no comments, no platform-dependent fields.
 *
 * The bytes are exactly those yazl writes for `addBuffer` with these options (a test holds the two
 * together): sizes and CRC in the local header, no data descriptor, no extra fields. Written here
 * with zlib's native CRC-32 and no stream plumbing, which cost a large share of writing big
 * partitions through yazl. Archives that would need ZIP64 go through yazl.
 */
export async function writeZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const seen = new Set<string>();
  for (const { name } of entries) {
    const problem = fileNameProblem(name);
    if (problem) throw new ArchiveError('unsafe_path', `cannot write entry: ${problem}: ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new ArchiveError('duplicate_entry', `cannot write entry twice: ${JSON.stringify(name)}`);
    seen.add(name);
  }
  const members = await Promise.all(entries.map(compressMember));
  const zip = assembleZip(members);
  return zip ?? writeZipWithYazl(entries);
}

interface Member {
  name: Buffer;
  method: 0 | 8;
  crc: number;
  size: number;
  data: Buffer;
}

/**
 * Deflate runs on the thread pool (as in yazl), so a caller can overlap it with other work; the
 * bytes are zlib's either way.
 */
async function compressMember({ name, data }: ZipEntry): Promise<Member> {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const level = compressionLevelOf(bytes.length);
  const stored = level === 0;
  return {
    name: Buffer.from(name.replace(/\\/g, '/'), 'utf8'),
    method: stored ? 0 : 8,
    crc: crc32(bytes) >>> 0,
    size: bytes.length,
    data: stored ? bytes : await deflateRawAsync(bytes, { level }),
  };
}

const deflateRawAsync = promisify(deflateRaw);

/** Small members are stored; large ones use Deflate level 1 (see {@link writeZipWithYazl}). */
function compressionLevelOf(size: number): number {
  return size < STORE_BELOW_BYTES ? 0 : 1;
}

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
const VERSION_NEEDED = 20;
const VERSION_MADE_BY = (3 << 8) | 63;
const UTF8_NAMES = 1 << 11;
/** FIXED_MTIME in DOS form: 2000-01-01 00:00:00. */
const DOS_TIME = 0;
const DOS_DATE = 1 | (1 << 5) | ((2000 - 1980) << 9);
const EXTERNAL_ATTRIBUTES = (FILE_MODE << 16) >>> 0;

/** The archive bytes, or null when it would need ZIP64 fields (left to yazl). */
function assembleZip(members: readonly Member[]): Uint8Array | null {
  if (members.length >= 0xffff) return null;
  let offset = 0;
  let centralSize = 0;
  for (const m of members) {
    if (m.size > 0xfffffffe || m.data.length > 0xfffffffe || offset > 0xfffffffe) return null;
    offset += LOCAL_HEADER + m.name.length + m.data.length;
    centralSize += CENTRAL_HEADER + m.name.length;
  }
  if (offset >= 0xffffffff || centralSize >= 0xffffffff) return null;
  const out = Buffer.allocUnsafe(offset + centralSize + END_RECORD);
  let at = 0;
  const offsets: number[] = [];
  for (const m of members) {
    offsets.push(at);
    out.writeUInt32LE(0x04034b50, at);
    out.writeUInt16LE(VERSION_NEEDED, at + 4);
    out.writeUInt16LE(UTF8_NAMES, at + 6);
    out.writeUInt16LE(m.method, at + 8);
    out.writeUInt16LE(DOS_TIME, at + 10);
    out.writeUInt16LE(DOS_DATE, at + 12);
    out.writeUInt32LE(m.crc, at + 14);
    out.writeUInt32LE(m.data.length, at + 18);
    out.writeUInt32LE(m.size, at + 22);
    out.writeUInt16LE(m.name.length, at + 26);
    out.writeUInt16LE(0, at + 28);
    at += LOCAL_HEADER;
    at += m.name.copy(out, at);
    at += m.data.copy(out, at);
  }
  const centralStart = at;
  members.forEach((m, i) => {
    out.writeUInt32LE(0x02014b50, at);
    out.writeUInt16LE(VERSION_MADE_BY, at + 4);
    out.writeUInt16LE(VERSION_NEEDED, at + 6);
    out.writeUInt16LE(UTF8_NAMES, at + 8);
    out.writeUInt16LE(m.method, at + 10);
    out.writeUInt16LE(DOS_TIME, at + 12);
    out.writeUInt16LE(DOS_DATE, at + 14);
    out.writeUInt32LE(m.crc, at + 16);
    out.writeUInt32LE(m.data.length, at + 20);
    out.writeUInt32LE(m.size, at + 24);
    out.writeUInt16LE(m.name.length, at + 28);
    out.writeUInt16LE(0, at + 30);
    out.writeUInt16LE(0, at + 32);
    out.writeUInt16LE(0, at + 34);
    out.writeUInt16LE(0, at + 36);
    out.writeUInt32LE(EXTERNAL_ATTRIBUTES, at + 38);
    out.writeUInt32LE(offsets[i]!, at + 42);
    at += CENTRAL_HEADER;
    at += m.name.copy(out, at);
  });
  out.writeUInt32LE(0x06054b50, at);
  out.writeUInt16LE(0, at + 4);
  out.writeUInt16LE(0, at + 6);
  out.writeUInt16LE(members.length, at + 8);
  out.writeUInt16LE(members.length, at + 10);
  out.writeUInt32LE(at - centralStart, at + 12);
  out.writeUInt32LE(centralStart, at + 16);
  out.writeUInt16LE(0, at + 20);
  at += END_RECORD;
  return new Uint8Array(out.buffer, out.byteOffset, at);
}

/** The same archive through yazl: the reference for the bytes above, and the ZIP64 path. */
export function writeZipWithYazl(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const zip = new yazl.ZipFile();
  for (const { name, data } of entries) {
    zip.addBuffer(Buffer.from(data.buffer, data.byteOffset, data.byteLength), name, {
      mtime: FIXED_MTIME,
      mode: FILE_MODE,
      // Small members are stored: each deflated member costs a zlib instance (hundreds of KB of
      // state), which dominated writing workspaces of many small files. Large ones use level 1:
      // memory JSONL compresses nearly as well as at level 6, at a fraction of the CPU.
      compressionLevel: compressionLevelOf(data.byteLength),
      forceDosTimestamp: true,
    });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    zip.end();
  });
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
