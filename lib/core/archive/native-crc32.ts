import { createRequire } from 'node:module';
import zlib from 'node:zlib';

/** What yazl uses of buffer-crc32. */
export interface BufferCrc32 {
  unsigned(input: string | Buffer, previous?: Buffer | number): number;
  nativeRouted?: boolean;
}

/** The buffer-crc32 module yazl itself loads (its CommonJS build, from yazl's directory), or null. */
export function yazlCrc32(): BufferCrc32 | null {
  try {
    const require = createRequire(import.meta.url);
    return createRequire(require.resolve('yazl'))('buffer-crc32') as BufferCrc32;
  } catch {
    return null;
  }
}

/**
 * yazl takes each member's CRC-32 from buffer-crc32, a byte-at-a-time JavaScript loop: about
 * 100 ms for the 35 MB of a 50,000-record store's base snapshot, written on every sync. Node
 * (≥ 20.15) computes the same CRC-32 natively (`zlib.crc32`: IEEE polynomial, same running
 * value). buffer-crc32's `unsigned` — the only function yazl calls — is routed to it for Buffer
 * input; anything else keeps the original. Same numbers, so the same archive bytes. Where either
 * is missing (an older Node, a bundle that inlined yazl) nothing changes.
 */
export function useNativeCrc32(): void {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  const target = yazlCrc32();
  if (typeof native !== 'function' || !target || target.nativeRouted) return;
  const original = target.unsigned.bind(target);
  target.unsigned = (input, previous) =>
    Buffer.isBuffer(input) && (previous === undefined || typeof previous === 'number') ? native(input, previous ?? 0) : original(input, previous);
  target.nativeRouted = true;
}
