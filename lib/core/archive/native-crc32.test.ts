import { describe, expect, it } from 'vitest';
import { prng } from '../prng';
import { useNativeCrc32, yazlCrc32 } from './native-crc32';

/** The table-driven CRC-32 (IEEE), as buffer-crc32 computes it in JavaScript. */
function tableCrc32(bytes: Uint8Array, previous = 0): number {
  let crc = ~previous;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

describe('useNativeCrc32', () => {
  it('routes buffer-crc32.unsigned to the native CRC-32 with the same values, whole and running', () => {
    useNativeCrc32();
    const crc32 = yazlCrc32()!;
    expect(crc32.nativeRouted).toBe(true);
    const rand = prng(5);
    for (let n = 0; n < 50; n++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(rand() * 3000) }, () => Math.floor(rand() * 256)));
      const cut = Math.floor(rand() * bytes.length);
      expect(crc32.unsigned(bytes)).toBe(tableCrc32(bytes));
      expect(crc32.unsigned(bytes.subarray(cut), crc32.unsigned(bytes.subarray(0, cut)))).toBe(tableCrc32(bytes));
    }
    expect(crc32.unsigned(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32.unsigned('123456789')).toBe(0xcbf43926);
  });
});
