import { isRustWhitespace, rustLines } from '@/lib/core/rust-str';

// Rust regex `\w` and `\d` are Unicode-aware; mirror that.
const IMPORTANCE_TAG = /\[([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+)\|i=([\p{Nd}.]+)\]/u;
const TRAILING_NON_ALNUM = /[^\p{Alphabetic}\p{N}]+$/u;
const TAG_DIRECTIVE = /^#tags:(.*)$/;

export interface ImportanceTags {
  /** Tag names, first per line, in line order. */
  names: string[];
  /** The highest score seen, when any parsed. */
  maxScore: number | null;
}

/** `[name|i=0.8]` importance tags (CONTRACT §4.3): the first per line. */
export function importanceTags(content: string): ImportanceTags {
  const names: string[] = [];
  let maxScore: number | null = null;
  // Every importance tag holds the literal `|i=`: without one there is nothing to scan.
  if (!content.includes('|i=')) return { names, maxScore };
  for (const line of rustLines(content)) {
    const match = IMPORTANCE_TAG.exec(line);
    if (!match) continue;
    names.push(match[1]!);
    const score = /^(\d+\.?\d*|\.\d+)$/.test(match[2]!) ? Number(match[2]) : Number.NaN;
    if (Number.isFinite(score) && (maxScore === null || score > maxScore)) maxScore = score;
  }
  return { names, maxScore };
}

/**
 * Whitespace tokens starting with `#`: leading `#`s and trailing non-alphanumerics stripped.
 *
 * Scanned in place, without slicing the tokens out: a token is only `#`s (a `## heading`'s) gives
 * no tag and costs nothing more, and a trailing run of ASCII non-alphanumerics is stripped by hand;
 * only a tag whose last character left is not ASCII goes through the Unicode regular expression.
 * (A token starts with `#`, so it has fewer than 2 characters only when it is `#`, which gives no tag.)
 */
export function hashtags(content: string): string[] {
  const out: string[] = [];
  const length = content.length;
  // A token starts with `#` exactly where a `#` follows whitespace or the start: jump between `#`s.
  for (let start = content.indexOf('#'); start >= 0; start = content.indexOf('#', start + 1)) {
    if (start > 0 && !isRustWhitespace(content.charCodeAt(start - 1))) continue;
    let end = start + 1;
    while (end < length && !isRustWhitespace(content.charCodeAt(end))) end++;
    let from = start + 1;
    while (from < end && content.charCodeAt(from) === 0x23) from++;
    let to = end;
    let code = 0;
    while (to > from && (code = content.charCodeAt(to - 1)) < 0x80 && !isAsciiAlphanumeric(code)) to--;
    start = end - 1;
    if (to === from) continue;
    const tag = code < 0x80 ? content.slice(from, to) : content.slice(from, to).replace(TRAILING_NON_ALNUM, '');
    if (tag.length > 0) out.push(tag);
  }
  return out;
}

/** `[A-Za-z0-9]`: the ASCII characters that are Alphabetic or N (all the others are neither). */
function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
}

/**
 * Memory v4.1 file tags: line 2 of the file as `#tags: networking, ssh` or
 * `#tags: #networking #ssh`. Returns null when line 2 is not such a directive.
 */
export function lineTwoTags(fileText: string): string[] | null {
  const line = secondLine(fileText);
  const match = line === undefined ? null : TAG_DIRECTIVE.exec(line.trim());
  if (!match) return null;
  return match[1]!
    .split(/[\s,]+/)
    .map((t) => t.replace(/^#+/, '').replace(TRAILING_NON_ALNUM, ''))
    .filter((t) => t.length > 0);
}

/** `rustLines(text)[1]`, without splitting the whole text. */
export function secondLine(text: string): string | undefined {
  const first = text.indexOf('\n');
  if (first < 0 || first + 1 === text.length) return undefined;
  const next = text.indexOf('\n', first + 1);
  const line = text.slice(first + 1, next < 0 ? text.length : next);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Removes line 2 (the tag directive) so its tokens are not read again as hashtags. */
export function withoutLineTwo(content: string, lineStart: number): string {
  if (lineStart > 2) return content;
  const lines = content.split('\n');
  lines.splice(2 - lineStart, 1);
  return lines.join('\n');
}

/** Order-preserving de-duplication. */
export function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
