/**
 * The packed at-rest form of a blob (FsBlobStore): the blob's structural form (zip-structure.ts:
 * its Deflated members taken apart into Huffman headers, tokens and literals, everything else raw)
 * deflated with a preset dictionary made of the structural forms of earlier blobs of the same
 * agent (its bases). Consecutive ledger blobs hold new versions of the same files; their deflate
 * streams share no bytes (each has its own Huffman codes) but their token and literal sequences
 * share nearly everything, and so do the ZIP headers and names.
 *
 * Reading is inflating (RFC 1951 fixes its output for a given input and dictionary) followed by
 * our own re-emission of each member's bits from its structure: nothing is ever re-deflated by
 * zlib to reproduce bytes, so no zlib upgrade can change what a stored blob reads back as.
 *
 * Layout: MAGIC | u32 size | sha256 (32) | u8 base count | per base: u8 name length, the base's
 * key relative to the blob's own key directory (UTF-8) | raw deflate stream. Integers little-endian.
 * MAGIC `ALP2`: the stream is the structural form against the bases' structural forms; `ALP1`
 * (branch `ledger`): the blob's bytes against the bases' bytes. Bases carry no checksum of their
 * own: whatever they are, the result must match the blob's sha256.
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { fromStructure, toStructure } from './zip-structure';

const MAGIC = Buffer.from('ALP2', 'latin1');
const MAGIC_V1 = Buffer.from('ALP1', 'latin1');
/** Deflate's window: a dictionary longer than this is never referenced. */
export const DICTIONARY_BYTES = 32 * 1024;

export interface PackedHeader {
  size: number;
  sha256: Buffer;
  /** The bases' keys, oldest first. */
  bases: string[];
  bodyOffset: number;
  /** The stream holds the structural form (ALP2), against the bases' structural forms. */
  structural: boolean;
}

/** The directory part of a key, with its trailing `/` (`''` at the top). */
export const dirOf = (key: string): string => key.slice(0, key.lastIndexOf('/') + 1);

export const sha256Of = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/**
 * Structural forms already computed, by the very byte array they were computed from (a cached
 * base is the same array on every read: its form is not recomputed; any other array is).
 */
const FORMS = new WeakMap<Uint8Array, Uint8Array>();

/** `toStructure(bytes)`, remembered for this array (callers never modify arrays they pass here). */
export function structureOf(bytes: Uint8Array): Uint8Array {
  let form = FORMS.get(bytes);
  if (!form) {
    form = toStructure(bytes);
    FORMS.set(bytes, form);
  }
  return form;
}

/** Records that `bytes` (a fresh copy nobody else holds) has the structural form `form` computed from equal bytes. */
export function rememberStructure(bytes: Uint8Array, form: Uint8Array): void {
  FORMS.set(bytes, form);
}

/** The bases' bytes, concatenated in order, cut to the window deflate can reach. */
export function dictionaryOf(bases: readonly Uint8Array[]): Buffer {
  const all = Buffer.concat(bases);
  return all.byteLength > DICTIONARY_BYTES ? all.subarray(all.byteLength - DICTIONARY_BYTES) : all;
}

/** A deflater: raw deflate of `bytes` with the preset `dictionary` (injectable to test the verify step). */
export type Deflater = (bytes: Uint8Array, dictionary: Buffer) => Uint8Array;

/**
 * Level 6 (level 9 saved 0.1 % on the bench history at more CPU); the window just covers the
 * dictionary and the blob, so a small delta does not pay for setting up a 32 KiB window.
 */
export const zlibDeflater: Deflater = (bytes, dictionary) => {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(dictionary.byteLength + bytes.byteLength + 262))));
  return zlib.deflateRawSync(bytes, { level: 6, windowBits, memLevel: 8, ...(dictionary.byteLength > 0 ? { dictionary } : {}) });
};

/**
 * The packed form of `key`'s `bytes` against `bases` (keys in the same directory, oldest first):
 * ALP2 from the blob's structural form `form`, or ALP1 (the bytes against the bases' bytes) when
 * `form` is null — better for the few blobs whose files the base does not hold.
 */
export function encodePacked(key: string, bytes: Uint8Array, bases: readonly { key: string; bytes: Uint8Array }[], deflate: Deflater = zlibDeflater, form: Uint8Array | null = toStructure(bytes)): Buffer {
  if (bases.length > 255) throw new Error('at most 255 bases');
  const dir = dirOf(key);
  const parts: Buffer[] = [form ? MAGIC : MAGIC_V1, u32(bytes.byteLength), sha256Of(bytes), Buffer.from([bases.length])];
  for (const base of bases) {
    if (dirOf(base.key) !== dir) throw new Error(`base ${base.key} is not in ${key}'s directory`);
    const name = Buffer.from(base.key.slice(dir.length), 'utf8');
    if (name.byteLength > 255) throw new Error(`base name ${base.key} is too long`);
    parts.push(Buffer.from([name.byteLength]), name);
  }
  const body = form ? deflate(form, dictionaryOf(bases.map((b) => structureOf(b.bytes)))) : deflate(bytes, dictionaryOf(bases.map((b) => b.bytes)));
  parts.push(Buffer.from(body));
  return Buffer.concat(parts);
}

/** Whether a stored file is in the packed form (its first bytes are the magic). */
export function isPacked(file: Uint8Array): boolean {
  return packedVersion(file) !== 0;
}

/** 2: structural form; 1: the bytes themselves; 0: not a packed file. */
function packedVersion(file: Uint8Array): 0 | 1 | 2 {
  if (file.byteLength < MAGIC.byteLength) return 0;
  const magic = Buffer.from(file.buffer, file.byteOffset, MAGIC.byteLength);
  return magic.equals(MAGIC) ? 2 : magic.equals(MAGIC_V1) ? 1 : 0;
}

/** Parses the header of `key`'s packed file; throws on anything malformed (the caller reports the blob as damaged). */
export function decodePackedHeader(key: string, file: Uint8Array): PackedHeader {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!isPacked(buf)) throw new Error('not a packed blob');
  let at = MAGIC.byteLength;
  const need = (n: number) => {
    if (at + n > buf.byteLength) throw new Error('packed blob header is truncated');
  };
  need(4 + 32 + 1);
  const size = buf.readUInt32LE(at);
  const sha256 = Buffer.from(buf.subarray(at + 4, at + 36));
  const count = buf[at + 36]!;
  at += 37;
  const bases: string[] = [];
  for (let i = 0; i < count; i++) {
    need(1);
    const length = buf[at]!;
    need(1 + length);
    bases.push(dirOf(key) + buf.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  return { size, sha256, bases, bodyOffset: at, structural: packedVersion(buf) === 2 };
}

/**
 * The blob's bytes from its packed file and its bases' bytes (already checked against the
 * header). Throws unless the result has exactly the recorded size and sha256. `members` gets the
 * length of each member re-emitted from a structural form.
 */
export function unpack(file: Uint8Array, header: PackedHeader, bases: readonly Uint8Array[], members?: number[]): Buffer {
  const body = Buffer.from(file.buffer, file.byteOffset + header.bodyOffset, file.byteLength - header.bodyOffset);
  const dictionary = dictionaryOf(header.structural ? bases.map(structureOf) : bases);
  let out: Buffer;
  try {
    // Every token of a member costs ≥ 2 bits of its stream and ≤ 5 bytes of structure: 24× bounds any form.
    const inflated = zlib.inflateRawSync(body, { ...(dictionary.byteLength > 0 ? { dictionary } : {}), maxOutputLength: Math.max(1, header.structural ? header.size * 24 + 4096 : header.size) });
    out = header.structural ? Buffer.from(fromStructure(inflated, members)) : inflated;
  } catch (error) {
    throw new Error(`packed blob cannot be rebuilt: ${(error as Error).message}`, { cause: error });
  }
  if (out.byteLength !== header.size || !sha256Of(out).equals(header.sha256)) throw new Error('packed blob does not inflate to its recorded sha256');
  return out;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
