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

/** Whitespace tokens starting with `#`: leading `#`s and trailing non-alphanumerics stripped. */
export function hashtags(content: string): string[] {
  const out: string[] = [];
  for (const token of hashTokens(content)) {
    if ([...token].length < 2) continue;
    const tag = token.replace(/^#+/, '').replace(TRAILING_NON_ALNUM, '');
    if (tag.length > 0) out.push(tag);
  }
  return out;
}

/**
 * The Rust-whitespace-separated tokens of `text` that start with `#`, in order. Scanned by
 * UTF-16 unit: every Rust whitespace character is in the BMP, so a surrogate is never one, and
 * tokens are sliced out whole instead of built a character at a time.
 */
function hashTokens(text: string): string[] {
  const tokens: string[] = [];
  const length = text.length;
  // A token starts with `#` exactly where a `#` follows whitespace or the start: jump between `#`s.
  for (let start = text.indexOf('#'); start >= 0; start = text.indexOf('#', start + 1)) {
    if (start > 0 && !isRustWhitespace(text.charCodeAt(start - 1))) continue;
    let end = start + 1;
    while (end < length && !isRustWhitespace(text.charCodeAt(end))) end++;
    tokens.push(text.slice(start, end));
    start = end - 1;
  }
  return tokens;
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
