/**
 * Which earlier blobs a new blob is packed against, and the check that the packed form reads back
 * as the very bytes put (FsBlobStore). Blobs are grouped per agent directory by sequence:
 * `<agent>/<seq>-…` belongs to group ⌊seq / GROUP⌋ and is packed only against the (up to WINDOW)
 * latest earlier blobs of its own group, so a read never follows more than GROUP − 1 packed files
 * and each group's first blob is stored whole, like a keyframe.
 */
import { BlobFiles } from './blob-files';
import { decodePackedHeader, encodePacked, unpack, zlibDeflater, type Deflater } from './packed-blob';
import { toStructure, toStructureUnchecked } from './zip-structure';

export const GROUP = 64;
/**
 * Three bases: a delta often carries a file the blob just before did not but one of the two before
 * it did (bench history, first 5,000 blobs: 0.725 of whole with one base, 0.691 with three, 0.686
 * with six); their structural forms (~5 KB each) fit deflate's 32 KiB window together.
 */
export const WINDOW = 3;
/** Larger blobs (snapshots of big workspaces) are stored whole and never serve as bases. */
export const MAX_PACK_BYTES = 1 << 20;
const MIN_PACK_BYTES = 64;
/** Packing must save at least this much over the whole blob, or the blob is stored whole. */
const MIN_SAVING = 32;

export interface BlobGroup {
  /** The key's directory part, with its trailing `/` (`''` at the top). */
  dir: string;
  seq: number;
  group: number;
}

const SEQ_KEY = /^((?:[^/]+\/)*)(\d{1,15})-[^/]+$/;

/** The directory, sequence and group of a ledger key (`<agent>/<seq>-<sha>.alf-delta`); null for other names. */
export function groupOf(key: string): BlobGroup | null {
  const match = SEQ_KEY.exec(key);
  if (!match) return null;
  const seq = Number(match[2]);
  return { dir: match[1]!, seq, group: Math.floor(seq / GROUP) };
}

export interface Packing {
  file: Buffer;
  bases: string[];
  /** The blob's structural form (what the next blob of the group is packed against), when known exactly. */
  form: Uint8Array | null;
}

/**
 * The packed form of `bytes` against the candidates (keys of the same group, oldest first; the
 * latest WINDOW that can be read are used), or null when it would not save anything or does not
 * reconstruct to the same sha256 — the blob is then stored whole.
 */
export function choosePacking(args: {
  key: string; bytes: Uint8Array; candidates: readonly string[]; files: BlobFiles; deflate?: Deflater; usable: (key: string) => boolean;
}): Packing | null {
  const { bytes } = args;
  if (bytes.byteLength < MIN_PACK_BYTES || bytes.byteLength > MAX_PACK_BYTES) return null;
  const bases: { key: string; bytes: Uint8Array }[] = [];
  for (const key of [...args.candidates].reverse()) {
    if (bases.length === WINDOW) break;
    if (!args.usable(key)) continue;
    try {
      const base = args.files.read(key, true);
      if (base.byteLength <= MAX_PACK_BYTES) bases.unshift({ key, bytes: base });
    } catch {
      // Gone or damaged meanwhile: not a base.
    }
  }
  if (bases.length === 0) return null;
  const quick = toStructureUnchecked(bytes);
  const packed = packAndCheck(args, bases, quick.form, quick.members)
    // A member that did not re-emit as itself: the checked form keeps it raw.
    ?? packAndCheck(args, bases, toStructure(bytes), null);
  if (!packed) return null;
  return { file: packed.file, bases: bases.map((b) => b.key), form: packed.form };
}

/**
 * Packs against `bases` (structurally, or the bytes when that saves more) and reads the result
 * back exactly as a later get will. `form` is returned only when it is known to be
 * `toStructure(bytes)` — what every reader computes for this blob as a base.
 */
function packAndCheck(
  args: { key: string; bytes: Uint8Array; deflate?: Deflater }, bases: readonly { key: string; bytes: Uint8Array }[],
  form: Uint8Array, members: number[] | null,
): { file: Buffer; form: Uint8Array | null } | null {
  const { bytes } = args;
  const attempt = (mode: Uint8Array | null): Buffer | null => {
    try {
      const candidate = encodePacked(args.key, bytes, bases, args.deflate ?? zlibDeflater, mode);
      return candidate.byteLength <= bytes.byteLength - MIN_SAVING ? candidate : null;
    } catch {
      return null;
    }
  };
  // A structural pack that saves little is compared with the bytes' pack (one more deflate, rarely).
  const structural = attempt(form);
  const plain = !structural || structural.byteLength > bytes.byteLength * 0.9 ? attempt(null) : null;
  const file = structural && (!plain || structural.byteLength <= plain.byteLength) ? structural : plain;
  if (!file) return null;
  try {
    const header = decodePackedHeader(args.key, file);
    // unpack checks the recorded sha256; the byte comparison checks that record against the input.
    const emitted: number[] = [];
    const again = unpack(file, header, bases.map((b) => b.bytes), emitted);
    if (!again.equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) return null;
    // Every member came back as itself, at its own length: this form is the checked one.
    const exact = members === null || (header.structural && emitted.length === members.length && emitted.every((n, i) => n === members[i]));
    return { file, form: exact ? form : null };
  } catch {
    return null;
  }
}

/** Which packed blobs among `packedKeys` have a base in `doomed` (and are not doomed themselves). */
export function packedDependants(packedKeys: readonly string[], doomed: ReadonlySet<string>, headerOf: (key: string) => string[] | null): string[] {
  // A base is always earlier in its dependant's own group: only those groups' later blobs are read.
  const earliest = new Map<string, number>();
  for (const key of doomed) {
    const g = groupOf(key);
    if (!g) continue;
    const at = `${g.dir}|${g.group}`;
    earliest.set(at, Math.min(earliest.get(at) ?? Infinity, g.seq));
  }
  const out: string[] = [];
  for (const key of packedKeys) {
    const g = groupOf(key);
    if (doomed.has(key) || !g || !(g.seq >= (earliest.get(`${g.dir}|${g.group}`) ?? Infinity))) continue;
    const bases = headerOf(key);
    if (bases?.some((b) => doomed.has(b))) out.push(key);
  }
  return out;
}
