import zlib from 'node:zlib';
import fc from 'fast-check';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ByteSink, ByteSource, emitDeflate, parseDeflate, type Streams } from './deflate-structure';

type Config = { name: string; deflate: (data: Uint8Array) => Uint8Array };

const STRATEGIES = {
  default: zlib.constants.Z_DEFAULT_STRATEGY, filtered: zlib.constants.Z_FILTERED, huffman: zlib.constants.Z_HUFFMAN_ONLY,
  rle: zlib.constants.Z_RLE, fixed: zlib.constants.Z_FIXED,
};
const LEVELS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
/** Every producer of raw deflate streams the ledger may meet: fflate (the client's writer) and node's zlib. */
const CONFIGS: Config[] = [
  ...LEVELS.map((level) => ({ name: `fflate level ${level}`, deflate: (d: Uint8Array) => deflateSync(d, { level }) })),
  ...LEVELS.flatMap((level) => Object.entries(STRATEGIES).map(([s, strategy]) => ({
    name: `zlib level ${level} ${s}`, deflate: (d: Uint8Array) => new Uint8Array(zlib.deflateRawSync(d, { level, strategy })),
  }))),
  // Small memLevel: many small blocks; small window: other distances.
  { name: 'zlib memLevel 1', deflate: (d) => new Uint8Array(zlib.deflateRawSync(d, { level: 6, memLevel: 1 })) },
  { name: 'zlib windowBits 9', deflate: (d) => new Uint8Array(zlib.deflateRawSync(d, { level: 9, windowBits: 9 })) },
];

const sinks = (): Streams<ByteSink> => ({ head: new ByteSink(), tokens: new ByteSink(), literals: new ByteSink() });
const sources = (s: Streams<ByteSink>): Streams<ByteSource> => ({
  head: new ByteSource(s.head.bytes()), tokens: new ByteSource(s.tokens.bytes()), literals: new ByteSource(s.literals.bytes()),
});

/** parse → re-emit; the re-emitted bits must be the stream, and the structure fully used. */
function roundTrip(stream: Uint8Array): Uint8Array {
  const s = sinks();
  const { used, pad } = parseDeflate(stream, s);
  expect(used).toBe(stream.byteLength);
  const src = sources(s);
  const again = emitDeflate(src, pad);
  expect([src.head.at, src.tokens.at, src.literals.at]).toEqual([s.head.length, s.tokens.length, s.literals.length]);
  return again;
}

/** Text with repeats (matches of every length and distance), or plain random bytes (stored blocks). */
const dataArb = fc.oneof(
  fc.array(fc.tuple(fc.oneof(fc.constantFrom('the ', 'agent ', 'memory\n', '{"id":"', 'zzzzzzzz'), fc.string({ maxLength: 12 })), fc.nat({ max: 40 })), { maxLength: 60 })
    .map((parts) => new TextEncoder().encode(parts.map(([text, n]) => text.repeat(n)).join(''))),
  fc.uint8Array({ maxLength: 4000 }),
);

describe('deflate structure: parse and re-emit', () => {
  it('re-emits exactly the stream of fflate and zlib at every level and strategy (property)', () => {
    fc.assert(fc.property(dataArb, fc.constantFrom(...CONFIGS), (data, config) => {
      const stream = config.deflate(data);
      expect(Buffer.from(roundTrip(stream)).equals(Buffer.from(stream)), config.name).toBe(true);
    }), { numRuns: 400 });
  });

  it('re-emits every configuration on empty, tiny, incompressible and multi-block inputs', () => {
    const text = new TextEncoder().encode(Array.from({ length: 4000 }, (_, i) => `line ${i % 97} of memory ${(i * 7919) % 1000}\n`).join(''));
    const random = new Uint8Array(70_000).map((_, i) => (i * 2654435761) >>> 24);
    for (const config of CONFIGS) {
      for (const data of [new Uint8Array(), new Uint8Array([65]), random, text]) {
        const stream = config.deflate(data);
        expect(Buffer.from(roundTrip(stream)).equals(Buffer.from(stream)), `${config.name}, ${data.byteLength} bytes`).toBe(true);
      }
    }
  });

  it('keeps odd encodings: length 258 written as symbol 284 with extra bits 31', () => {
    // A fixed block: literal 'a', then a match of 227 + 31 = 258 at distance 1, then end of block.
    const s = sinks();
    s.head.push(1 | (1 << 1));
    s.literals.push(97);
    for (const b of [1, 28, 31, 0, 0, 0]) s.tokens.push(b);
    const stream = emitDeflate(sources(s), 0);
    expect(zlib.inflateRawSync(stream).toString()).toBe('a'.repeat(259));
    const parsed = sinks();
    parseDeflate(stream, parsed);
    expect(Buffer.from(parsed.tokens.bytes())).toEqual(Buffer.from([1, 28, 31, 0, 0, 0]));
    expect(Buffer.from(roundTrip(stream)).equals(Buffer.from(stream))).toBe(true);
  });

  it('keeps the padding bits after the final block and in front of a stored block, whatever they are', () => {
    const streams = Array.from({ length: 16 }, (_, n) => new Uint8Array(zlib.deflateRawSync(Buffer.from(`hello ${'x'.repeat(n)}`), { level: 9 })));
    const stream = streams.find((s) => parseDeflate(s, sinks()).padBits >= 2)!;
    const { padBits } = parseDeflate(stream, sinks());
    const padded = Uint8Array.from(stream);
    padded[padded.length - 1]! |= (0xff << (8 - padBits)) & 0xff;
    expect(parseDeflate(padded, sinks()).pad).toBe((1 << padBits) - 1);
    expect(Buffer.from(roundTrip(padded)).equals(Buffer.from(padded))).toBe(true);
    // Stored block: BFINAL 1, BTYPE 00, five padding bits set, LEN 2, NLEN ~2, 'hi'.
    const stored = new Uint8Array([0b11111001, 2, 0, 0xfd, 0xff, 104, 105]);
    expect(zlib.inflateRawSync(stored).toString()).toBe('hi');
    expect(Buffer.from(roundTrip(stored)).equals(Buffer.from(stored))).toBe(true);
  });

  it('refuses what it cannot follow: reserved block type, truncated stream, over-subscribed code', () => {
    expect(() => parseDeflate(new Uint8Array([0b111]), sinks())).toThrow(/reserved/);
    const stream = new Uint8Array(zlib.deflateRawSync(Buffer.from('a fairly long text, a fairly long text'.repeat(20))));
    expect(() => parseDeflate(stream.subarray(0, stream.length - 3), sinks())).toThrow(/ends early/);
    // Dynamic block whose code-length code gives 8 symbols length 1: over-subscribed.
    const s = sinks();
    s.head.push(1 | (2 << 1));
    for (const b of [0, 0, 4, 1, 1, 1, 1, 1, 1, 1, 1]) s.head.push(b);
    expect(() => emitDeflate(sources(s), 0)).toThrow(/over-subscribed/);
  });
});
