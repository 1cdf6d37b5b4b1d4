/**
 * Emulation of the Rust string semantics the reference relies on (CONTRACT §4.2):
 * `str::trim_end` strips Unicode White_Space (including U+0085, excluding U+FEFF),
 * `str::lines` splits on `\n`, strips one trailing `\r` per line and yields no
 * trailing empty element.
 */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function isRustWhitespace(codePoint: number): boolean {
  // ASCII first, without the set: nearly every character tested is ASCII.
  if (codePoint < 0x80) return codePoint === 0x20 || (codePoint >= 0x09 && codePoint <= 0x0d);
  return WHITE_SPACE.has(codePoint);
}

export function rustTrimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && isRustWhitespace(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

export function rustTrimStart(s: string): string {
  let start = 0;
  while (start < s.length && WHITE_SPACE.has(s.charCodeAt(start))) start++;
  return s.slice(start);
}

export function rustTrim(s: string): string {
  return rustTrimStart(rustTrimEnd(s));
}

export function rustLines(s: string): string[] {
  if (s.length === 0) return [];
  const parts = s.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
