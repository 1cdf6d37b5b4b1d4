/** SQLite's BINARY collation (UTF-8 bytes), for orders the database path gets from ORDER BY. */
export function compareBinary(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, UTF-16 code unit order is code point order is UTF-8 byte order.
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a.slice(i), 'utf8'), Buffer.from(b.slice(i), 'utf8'));
  }
  return a.length - b.length;
}
