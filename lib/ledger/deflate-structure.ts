/**
 * A raw deflate stream (RFC 1951) taken apart into exactly what was written — block types, the
 * dynamic Huffman headers' code-length codes, the symbol (+ extra bits) of every token, stored
 * blocks' LEN/NLEN and padding bits — and put back bit for bit by our own canonical-Huffman
 * writer. Two versions of an appended file deflate to streams whose Huffman codes differ and so
 * share no bytes, but their token sequences share everything up to the change: this structure is
 * what the at-rest packing (zip-structure.ts) compresses against the forms of the blobs before it.
 *
 * Re-emission depends on nothing but this code and the stored structure (never on zlib
 * re-deflating), so a zlib upgrade cannot change what a stored blob reads back as. Symbols and
 * extra bits are kept, not lengths or distances, so unusual encodings (length 258 as 284+31,
 * incomplete codes) round-trip too. Anything the parser cannot follow throws; callers keep those
 * bytes as they are and verify every re-emission against the original.
 *
 * The structure is three byte streams (ByteSink): `head` (per block: type byte; dynamic: HLIT,
 * HDIST, HCLEN, the code-length-code lengths, each code-length symbol + its extra bits; stored:
 * padding bits, LEN, NLEN), `tokens` (per literal run its length as a varint, then per match the
 * length symbol − 256, extra bits, distance symbol, extra bits; 0 ends the block) and `literals`.
 */
export class ByteSink {
  buf = new Uint8Array(1024);
  length = 0;

  push(b: number): void {
    if (this.length === this.buf.length) this.grow(1);
    this.buf[this.length++] = b;
  }

  pushBytes(bytes: Uint8Array): void {
    this.grow(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  varint(n: number): void {
    while (n >= 0x80) {
      this.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    this.push(n);
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  private grow(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

/** Reads a ByteSink's bytes back; throws past the end (damaged structure). */
export class ByteSource {
  at = 0;
  constructor(readonly buf: Uint8Array) {}

  byte(): number {
    if (this.at >= this.buf.length) throw new Error('deflate structure is truncated');
    return this.buf[this.at++]!;
  }

  take(n: number): Uint8Array {
    if (this.at + n > this.buf.length) throw new Error('deflate structure is truncated');
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  varint(): number {
    let n = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
    throw new Error('deflate structure has a bad varint');
  }
}

export interface Streams<T> { head: T; tokens: T; literals: T }

const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
/** Extra bits of length symbols 257..285 and of distance symbols 0..29. */
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_EXTRA: Record<number, [number, number]> = { 16: [2, 3], 17: [3, 3], 18: [7, 11] };

const FIXED_LIT = Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8));
const FIXED_DIST = Array.from({ length: 30 }, () => 5);

/** 8-bit reversal, for writing Huffman codes (most significant bit first) into the LSB-first stream. */
const REV8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let r = 0;
  for (let b = 0; b < 8; b++) r |= ((i >> b) & 1) << (7 - b);
  return r;
});

/** A canonical Huffman code from its lengths: decode tables (puff.c style) and per-symbol codes, bit-reversed for LSB-first output. */
class Code {
  readonly count = new Uint16Array(16);
  readonly symbol: Uint16Array;
  readonly reversed: Uint16Array;
  constructor(readonly lengths: ArrayLike<number>) {
    const n = lengths.length;
    for (let s = 0; s < n; s++) this.count[lengths[s]!]!++;
    this.count[0] = 0;
    let left = 1;
    for (let len = 1; len < 16; len++) {
      left = left * 2 - this.count[len]!;
      if (left < 0) throw new Error('over-subscribed Huffman code');
    }
    const offs = new Uint16Array(16);
    for (let len = 1; len < 15; len++) offs[len + 1] = offs[len]! + this.count[len]!;
    this.symbol = new Uint16Array(n);
    for (let s = 0; s < n; s++) if (lengths[s]) this.symbol[offs[lengths[s]!]!++] = s;
    // RFC 1951 3.2.2: the first code of each length, then consecutive codes in symbol order.
    this.reversed = new Uint16Array(n);
    const next = new Uint16Array(16);
    let code = 0;
    for (let len = 1; len < 16; len++) {
      next[len] = code;
      code = (code + this.count[len]!) << 1;
    }
    for (let s = 0; s < n; s++) {
      const l = lengths[s]!;
      if (!l) continue;
      const c = next[l]!++;
      this.reversed[s] = ((REV8[c & 0xff]! << 8) | REV8[c >> 8]!) >> (16 - l);
    }
  }

  /** Codes of up to FAST_BITS bits by their next FAST_BITS stream bits: symbol << 4 | length; 0 = longer (decoded bit by bit). */
  private fastTable: Uint16Array | null = null;

  get fast(): Uint16Array {
    if (this.fastTable) return this.fastTable;
    const table = new Uint16Array(1 << FAST_BITS);
    for (let s = 0; s < this.lengths.length; s++) {
      const l = this.lengths[s]!;
      if (!l || l > FAST_BITS) continue;
      for (let j = this.reversed[s]!; j < table.length; j += 1 << l) table[j] = (s << 4) | l;
    }
    return (this.fastTable = table);
  }
}

const FAST_BITS = 9;

/** LSB-first bit reader over whole bytes (RFC 1951 3.1.1); throws past the end. */
class BitReader {
  private at = 0;
  private acc = 0;
  private count = 0;
  constructor(private readonly buf: Uint8Array) {}

  bit(): number {
    if (this.count === 0) this.load();
    const v = this.acc & 1;
    this.acc >>>= 1;
    this.count--;
    return v;
  }

  bits(n: number): number {
    while (this.count < n) this.load();
    const v = this.acc & ((1 << n) - 1);
    this.acc >>>= n;
    this.count -= n;
    return v;
  }

  private load(): void {
    if (this.at >= this.buf.length) throw new Error('deflate stream ends early');
    this.acc |= this.buf[this.at++]! << this.count;
    this.count += 8;
  }

  decode(code: Code): number {
    // Fast path: the next FAST_BITS bits (fewer at the very end) name a short code directly.
    while (this.count < FAST_BITS && this.at < this.buf.length) this.load();
    const entry = code.fast[this.acc & ((1 << FAST_BITS) - 1)]!;
    const l = entry & 15;
    if (entry !== 0 && l <= this.count) {
      this.acc >>>= l;
      this.count -= l;
      return entry >> 4;
    }
    return this.decodeSlowly(code);
  }

  private decodeSlowly(code: Code): number {
    let c = 0, first = 0, index = 0;
    for (let len = 1; len < 16; len++) {
      c |= this.bit();
      const count = code.count[len]!;
      if (c - count < first) return code.symbol[index + (c - first)]!;
      index += count;
      first = (first + count) << 1;
      c <<= 1;
    }
    throw new Error('bad Huffman code in deflate stream');
  }

  /** Bits left in the current byte (they pad it): whole bytes are loaded, so the partial one is the remainder. */
  get padBits(): number {
    return this.count & 7;
  }

  get bytesUsed(): number {
    return this.at - (this.count >> 3);
  }
}

class BitWriter {
  readonly out = new ByteSink();
  private acc = 0;
  private n = 0;

  /** `count` ≤ 16 bits of `v`; fewer than 8 are ever pending, so the accumulator stays below 2^24. */
  bits(v: number, count: number): void {
    this.acc |= (v & ((1 << count) - 1)) << this.n;
    this.n += count;
    while (this.n >= 8) {
      this.out.push(this.acc & 0xff);
      this.acc >>>= 8;
      this.n -= 8;
    }
  }

  symbol(code: Code, s: number): void {
    const l = code.lengths[s];
    if (!l) throw new Error('deflate structure uses a symbol without a code');
    this.bits(code.reversed[s]!, l);
  }

  get padBits(): number {
    return (8 - this.n) & 7;
  }
}

/** Reads the code-length header of a dynamic block into `head`, returning the lit/len and distance codes. */
function readDynamicHeader(r: BitReader, head: ByteSink): [Code, Code] {
  const hlit = r.bits(5), hdist = r.bits(5), hclen = r.bits(4);
  head.push(hlit);
  head.push(hdist);
  head.push(hclen);
  const clLengths = new Array<number>(19).fill(0);
  for (let i = 0; i < hclen + 4; i++) {
    clLengths[CL_ORDER[i]!] = r.bits(3);
    head.push(clLengths[CL_ORDER[i]!]!);
  }
  const clCode = new Code(clLengths);
  const total = hlit + 257 + hdist + 1;
  const lengths = new Uint8Array(total + 138);
  let filled = 0;
  while (filled < total) {
    const sym = r.decode(clCode);
    head.push(sym);
    if (sym < 16) {
      lengths[filled++] = sym;
      continue;
    }
    const [nbits, base] = CL_EXTRA[sym]!;
    const extra = r.bits(nbits);
    head.push(extra);
    if (sym === 16 && filled === 0) throw new Error('repeat with no previous length');
    const value = sym === 16 ? lengths[filled - 1]! : 0;
    for (let i = 0; i < base + extra; i++) lengths[filled++] = value;
  }
  if (filled > total) throw new Error('code lengths overrun');
  return [new Code(lengths.subarray(0, hlit + 257)), new Code(lengths.subarray(hlit + 257, total))];
}

function writeDynamicHeader(w: BitWriter, head: ByteSource): [Code, Code] {
  const hlit = head.byte(), hdist = head.byte(), hclen = head.byte();
  if (hlit > 31 || hdist > 31 || hclen > 15) throw new Error('deflate structure has a bad block header');
  w.bits(hlit, 5);
  w.bits(hdist, 5);
  w.bits(hclen, 4);
  const clLengths = new Array<number>(19).fill(0);
  for (let i = 0; i < hclen + 4; i++) {
    const l = head.byte();
    if (l > 7) throw new Error('deflate structure has a bad code-length length');
    clLengths[CL_ORDER[i]!] = l;
    w.bits(l, 3);
  }
  const clCode = new Code(clLengths);
  const total = hlit + 257 + hdist + 1;
  const lengths = new Uint8Array(total + 138);
  let filled = 0;
  while (filled < total) {
    const sym = head.byte();
    if (sym > 18) throw new Error('deflate structure has a bad code-length symbol');
    w.symbol(clCode, sym);
    if (sym < 16) {
      lengths[filled++] = sym;
      continue;
    }
    const [nbits, base] = CL_EXTRA[sym]!;
    const extra = head.byte();
    if (extra >= 1 << nbits) throw new Error('deflate structure has bad extra bits');
    w.bits(extra, nbits);
    if (sym === 16 && filled === 0) throw new Error('repeat with no previous length');
    const value = sym === 16 ? lengths[filled - 1]! : 0;
    for (let i = 0; i < base + extra; i++) lengths[filled++] = value;
  }
  if (filled > total) throw new Error('code lengths overrun');
  return [new Code(lengths.subarray(0, hlit + 257)), new Code(lengths.subarray(hlit + 257, total))];
}

const FIXED: [Code, Code] = [new Code(FIXED_LIT), new Code(FIXED_DIST)];

/**
 * Takes the raw deflate stream at the start of `data` apart into `out`; returns how many bytes
 * it used and the value (and count) of the bits padding its last byte. Throws on anything it cannot follow
 * (then `out` holds partial data: the caller rolls it back).
 */
export function parseDeflate(data: Uint8Array, out: Streams<ByteSink>): { used: number; pad: number; padBits: number } {
  const r = new BitReader(data);
  for (;;) {
    const final = r.bit();
    const type = r.bits(2);
    out.head.push(final | (type << 1));
    if (type === 0) {
      const padBits = r.padBits;
      out.head.push(r.bits(padBits));
      const len = r.bits(16), nlen = r.bits(16);
      out.head.push(len & 0xff);
      out.head.push(len >> 8);
      out.head.push(nlen & 0xff);
      out.head.push(nlen >> 8);
      for (let i = 0; i < len; i++) out.literals.push(r.bits(8));
    } else if (type === 3) {
      throw new Error('reserved block type');
    } else {
      const [lit, dist] = type === 1 ? FIXED : readDynamicHeader(r, out.head);
      let run = 0;
      for (;;) {
        const sym = r.decode(lit);
        if (sym < 256) {
          out.literals.push(sym);
          run++;
          continue;
        }
        out.tokens.varint(run);
        run = 0;
        if (sym === 256) {
          out.tokens.push(0);
          break;
        }
        if (sym > 285) throw new Error('bad length symbol');
        out.tokens.push(sym - 256);
        const lx = LEN_EXTRA[sym - 257]!;
        if (lx) out.tokens.push(r.bits(lx));
        const d = r.decode(dist);
        if (d > 29) throw new Error('bad distance symbol');
        out.tokens.push(d);
        const dx = DIST_EXTRA[d]!;
        if (dx) {
          const v = r.bits(dx);
          out.tokens.push(v & 0xff);
          if (dx > 8) out.tokens.push(v >> 8);
        }
      }
    }
    if (final) break;
  }
  const padBits = r.padBits;
  const pad = r.bits(padBits);
  return { used: r.bytesUsed, pad, padBits };
}

/** Writes the stream `parseDeflate` took apart, from the streams' current positions, back to `w`'s bytes. */
export function emitDeflate(src: Streams<ByteSource>, pad: number): Uint8Array {
  const w = new BitWriter();
  for (;;) {
    const b = src.head.byte();
    if (b > 7) throw new Error('deflate structure has a bad block header');
    const final = b & 1, type = b >> 1;
    w.bits(final, 1);
    w.bits(type, 2);
    if (type === 0) {
      const padBits = w.padBits;
      const p = src.head.byte();
      if (p >= 1 << padBits) throw new Error('deflate structure has bad padding');
      w.bits(p, padBits);
      const len = src.head.byte() | (src.head.byte() << 8);
      const nlen = src.head.byte() | (src.head.byte() << 8);
      w.bits(len, 16);
      w.bits(nlen, 16);
      const bytes = src.literals.take(len);
      for (let i = 0; i < len; i++) w.bits(bytes[i]!, 8);
    } else if (type === 3) {
      throw new Error('deflate structure has a reserved block type');
    } else {
      const [lit, dist] = type === 1 ? FIXED : writeDynamicHeader(w, src.head);
      for (;;) {
        const run = src.tokens.varint();
        const bytes = src.literals.take(run);
        for (let i = 0; i < run; i++) w.symbol(lit, bytes[i]!);
        const code = src.tokens.byte();
        if (code === 0) {
          w.symbol(lit, 256);
          break;
        }
        if (code > 29) throw new Error('deflate structure has a bad length symbol');
        w.symbol(lit, code + 256);
        const lx = LEN_EXTRA[code - 1]!;
        if (lx) {
          const v = src.tokens.byte();
          if (v >= 1 << lx) throw new Error('deflate structure has bad extra bits');
          w.bits(v, lx);
        }
        const d = src.tokens.byte();
        if (d > 29) throw new Error('deflate structure has a bad distance symbol');
        w.symbol(dist, d);
        const dx = DIST_EXTRA[d]!;
        if (dx) {
          let v = src.tokens.byte();
          if (dx > 8) v |= src.tokens.byte() << 8;
          if (v >= 1 << dx) throw new Error('deflate structure has bad extra bits');
          w.bits(v, dx);
        }
      }
    }
    if (final) break;
  }
  const padBits = w.padBits;
  if (pad >= 1 << padBits) throw new Error('deflate structure has bad padding');
  w.bits(pad, padBits);
  return w.out.bytes();
}
