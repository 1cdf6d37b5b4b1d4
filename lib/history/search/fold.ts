/**
 * Case folding and word characters, shared by the search engine's matcher, its candidate query and
 * the dashboard's highlighting. Folding is per code point and never changes a string's UTF-16
 * length, so an offset in the folded text is the same offset in the original.
 */

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/**
 * Simple Unicode case folding of one code point: its lowercase, then the lowercase of that
 * uppercase, which joins the variants case folding joins (ς σ Σ, ſ s, K k, ẞ ß). Kept as they are:
 * a code point whose lowercase is longer (İ), dotless ı (folding keeps it apart from i), and the
 * Cyrillic letter variants U+1C80–1C88 (kept apart from в, о, … since the search was first built on
 * SQLite's trigram index, which keeps them apart; PostgreSQL's search answers the same).
 */
function foldCodePoint(ch: string): string {
  const lower = ch.toLowerCase();
  if (lower.length !== ch.length) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp === 0x131 || (cp >= 0x1c80 && cp <= 0x1c88)) return lower;
  const round = lower.toUpperCase().toLowerCase();
  return round.length === ch.length ? round : lower;
}

const cache = new Map<string, string>();

export function foldChar(ch: string): string {
  let folded = cache.get(ch);
  if (folded === undefined) {
    folded = foldCodePoint(ch);
    if (cache.size < 65536) cache.set(ch, folded);
  }
  return folded;
}

const ASCII = /^[\x00-\x7f]*$/;

/** `text` case-folded, code point by code point; same length in UTF-16 units. */
export function foldCase(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  let out = '';
  for (const ch of text) out += foldChar(ch);
  return out;
}

/** A letter, digit or combining mark (a mark belongs to the letter before it). */
export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}

/** The code point that ends just before UTF-16 offset `at` (undefined at the start). */
export function charBefore(text: string, at: number): string | undefined {
  if (at <= 0) return undefined;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(at - 2, at);
  }
  return text[at - 1];
}

/** The code point that starts at UTF-16 offset `at` (undefined at the end). */
export function charAt(text: string, at: number): string | undefined {
  if (at >= text.length) return undefined;
  const cp = text.codePointAt(at)!;
  return String.fromCodePoint(cp);
}
