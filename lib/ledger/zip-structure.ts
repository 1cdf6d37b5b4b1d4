/**
 * The structural form of a blob (an ALF ZIP archive), what packed blobs are compressed as: every
 * Deflated member whose stream deflate-structure.ts can take apart and write back bit for bit is
 * replaced by its structure; everything else (ZIP headers, central directory, members it cannot
 * represent) is kept as raw bytes. The form is four sections — skeleton (raw bytes + where each
 * member goes), Huffman headers, tokens, literals — so two versions of an archive whose files
 * grew share long runs section by section, which deflate with the previous form as dictionary
 * finds. `fromStructure(toStructure(x))` is `x` for every byte string (verified per member here
 * and for the whole blob by sha256 at put).
 *
 * Layout: u8 version (1) | varint length of skeleton, head, tokens, literals | the four sections.
 * Skeleton: repeated { varint n, n raw bytes, u8 0 = end | 1 = a member follows + u8 its padding bits }.
 */
import { ByteSink, ByteSource, emitDeflate, parseDeflate, type Streams } from './deflate-structure';

const VERSION = 1;
const LOCAL_HEADER = 0x04034b50;

/** Where each local member's compressed data starts and ends (Deflated ones with known sizes only). */
function deflatedMembers(zip: Uint8Array): { start: number; end: number }[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const out: { start: number; end: number }[] = [];
  let at = 0;
  while (at + 30 <= zip.byteLength && view.getUint32(at, true) === LOCAL_HEADER) {
    const flags = view.getUint16(at + 6, true), method = view.getUint16(at + 8, true);
    const csize = view.getUint32(at + 18, true);
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    // A data descriptor (bit 3) or ZIP64 leaves the local size unknown: keep the rest raw.
    if (flags & 8 || csize === 0xffffffff || start + csize > zip.byteLength) break;
    if (method === 8 && csize > 0) out.push({ start, end: start + csize });
    at = start + csize;
  }
  return out;
}

const sinks = (): Streams<ByteSink> => ({ head: new ByteSink(), tokens: new ByteSink(), literals: new ByteSink() });

/** The structural form of `blob`: every member taken apart is checked to re-emit exactly, the others stay raw. */
export function toStructure(blob: Uint8Array): Uint8Array {
  return structure(blob, true).form;
}

/**
 * The form without the per-member re-emission check, and each member's length: it is
 * `toStructure(blob)` exactly when `fromStructure` gives `blob` back with those member lengths
 * (every member then re-emitted as itself), which the put's read-back checks anyway.
 */
export function toStructureUnchecked(blob: Uint8Array): { form: Uint8Array; members: number[] } {
  return structure(blob, false);
}

function structure(blob: Uint8Array, check: boolean): { form: Uint8Array; members: number[] } {
  const members: number[] = [];
  const skeleton = new ByteSink();
  const s = sinks();
  let raw = 0;
  for (const member of deflatedMembers(blob)) {
    const marks = { head: s.head.length, tokens: s.tokens.length, literals: s.literals.length };
    const data = blob.subarray(member.start, member.end);
    let parsed: { used: number; pad: number } | null = null;
    try {
      parsed = parseDeflate(data, s);
      const again = !check ? null : emitDeflate({
        head: new ByteSource(s.head.bytes().subarray(marks.head)),
        tokens: new ByteSource(s.tokens.bytes().subarray(marks.tokens)),
        literals: new ByteSource(s.literals.bytes().subarray(marks.literals)),
      }, parsed.pad);
      if (again && !Buffer.from(again).equals(data.subarray(0, parsed.used))) parsed = null;
    } catch {
      parsed = null;
    }
    if (!parsed) {
      // Not representable exactly: this member stays raw bytes.
      s.head.length = marks.head;
      s.tokens.length = marks.tokens;
      s.literals.length = marks.literals;
      continue;
    }
    skeleton.varint(member.start - raw);
    skeleton.pushBytes(blob.subarray(raw, member.start));
    skeleton.push(1);
    skeleton.push(parsed.pad);
    members.push(parsed.used);
    raw = member.start + parsed.used;
  }
  skeleton.varint(blob.byteLength - raw);
  skeleton.pushBytes(blob.subarray(raw));
  skeleton.push(0);
  const out = new ByteSink();
  out.push(VERSION);
  const sections = [skeleton, s.head, s.tokens, s.literals];
  for (const section of sections) out.varint(section.length);
  for (const section of sections) out.pushBytes(section.bytes());
  return { form: out.bytes().slice(), members };
}

/** The blob back from its structural form (`members` gets each member's length); throws on a damaged form (callers check sha256 too). */
export function fromStructure(form: Uint8Array, members?: number[]): Uint8Array {
  const top = new ByteSource(form);
  if (top.byte() !== VERSION) throw new Error('unknown structural form');
  const lengths = [top.varint(), top.varint(), top.varint(), top.varint()];
  const [skeleton, head, tokens, literals] = lengths.map((n) => new ByteSource(top.take(n))) as [ByteSource, ByteSource, ByteSource, ByteSource];
  if (top.at !== form.byteLength) throw new Error('structural form has trailing bytes');
  const out = new ByteSink();
  for (;;) {
    out.pushBytes(skeleton.take(skeleton.varint()));
    const kind = skeleton.byte();
    if (kind === 0) break;
    if (kind !== 1) throw new Error('structural form has a bad skeleton');
    const member = emitDeflate({ head, tokens, literals }, skeleton.byte());
    members?.push(member.byteLength);
    out.pushBytes(member);
  }
  for (const section of [skeleton, head, tokens, literals]) {
    if (section.at !== section.buf.byteLength) throw new Error('structural form has unused bytes');
  }
  return out.bytes().slice();
}

/** Section sizes of a structural form and how many members it took apart (bench, tests). */
export function describeStructure(form: Uint8Array): { skeleton: number; head: number; tokens: number; literals: number; members: number } {
  const top = new ByteSource(form);
  top.byte();
  const [skeleton, head, tokens, literals] = [top.varint(), top.varint(), top.varint(), top.varint()] as [number, number, number, number];
  const s = new ByteSource(top.take(skeleton));
  let members = 0;
  for (;;) {
    s.take(s.varint());
    if (s.byte() === 0) break;
    s.byte();
    members++;
  }
  return { skeleton, head, tokens, literals, members };
}
