/** The same bytes as a plain Uint8Array, without copying them (`new Uint8Array(buffer)` copies). */
export function asUint8Array(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
