/**
 * The changed words of an update, for a one-line feed row: the word diff (lib/ui/diff) with long
 * unchanged stretches cut down to a few words of context around each change. Pure.
 *
 * A feed page diffs up to 200 updates on every request (the home page, each visit), so excerpts are
 * kept in a bounded cache keyed by the two texts (the same texts give the same excerpt), and a
 * changed region — between the first and the last difference, cut at token boundaries MARGIN
 * characters outside them — longer than MAX_TOKENS tokens is diffed over its first MAX_TOKENS
 * only, with "…" after (a rewrite of a long memory would otherwise run diff-match-patch's O(N·D)
 * bisection up to its 1 s timeout; the row shows at most BUDGET characters anyway). Below the cap
 * the whole texts are diffed: the token codes, and so the semantic cleanup, stay exactly as before.
 */
import { tokenize, wordDiff, type DiffSegment } from './diff';

/** Characters of unchanged text kept on each side of a change. */
const CONTEXT = 40;
/** Total characters of the excerpt before it stops (with "…"). */
const BUDGET = 240;

function clipStart(text: string): string {
  if (text.length <= CONTEXT) return text;
  const cut = text.slice(-CONTEXT);
  const space = cut.search(/\s/);
  return `…${space >= 0 && space < CONTEXT - 8 ? cut.slice(space) : cut}`;
}

function clipEnd(text: string): string {
  if (text.length <= CONTEXT) return text;
  const cut = text.slice(0, CONTEXT);
  const space = cut.search(/\s\S*$/);
  return `${space > 8 ? cut.slice(0, space) : cut}…`;
}

/** Unchanged characters kept on each side of the changed region when the common ends are cut off. */
const MARGIN = 200;
/** Tokens of the changed region diffed, on each side. */
const MAX_TOKENS = 2_000;

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/** Whether tokenizing may restart at `i`: a whitespace run ends there and a token starts (or the text does). */
const boundary = (text: string, i: number) => i === 0 || i === text.length || (isSpace(text[i - 1]) && !isSpace(text[i]));

/**
 * The word diff, over the changed region's first MAX_TOKENS tokens when it has more (with the
 * common start as an equal segment and "…" after). The region's cuts are where both texts' tokens
 * split alike: after a whitespace run, before a token.
 */
export function changedRegionDiff(before: string, after: string): DiffSegment[] {
  const shortest = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shortest && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  if (prefix === before.length && prefix === after.length) return wordDiff(before, after);
  let suffix = 0;
  while (suffix < shortest - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  let start = Math.max(0, prefix - MARGIN);
  while (!boundary(before, start)) start--;
  // `end` counts from the end of the texts; the cut is at `before.length - end` (and `after.length - end`).
  let end = Math.max(0, suffix - MARGIN);
  while (end > 0 && !boundary(before, before.length - end)) end--;
  const tokensBefore = tokenize(before.slice(start, before.length - end));
  const tokensAfter = tokenize(after.slice(start, after.length - end));
  if (tokensBefore.length <= MAX_TOKENS && tokensAfter.length <= MAX_TOKENS) return wordDiff(before, after);
  const out: DiffSegment[] = [];
  const push = (segment: DiffSegment) => {
    if (!segment.text) return;
    const last = out[out.length - 1];
    if (last && last.op === segment.op) last.text += segment.text;
    else out.push({ ...segment });
  };
  push({ op: 'equal', text: before.slice(0, start) });
  for (const segment of wordDiff(tokensBefore.slice(0, MAX_TOKENS).join(''), tokensAfter.slice(0, MAX_TOKENS).join(''))) push(segment);
  push({ op: 'equal', text: ' …' });
  return out;
}

/** Excerpts already computed, by their two texts; the oldest is dropped past CACHE_SIZE. */
const CACHE_SIZE = 4_096;
const cache = new Map<string, DiffSegment[]>();
export const excerptCache = { hits: 0, get size() { return cache.size; } };

/** The diff of `before` → `after` with only the context around the changes kept (empty when equal). */
export function diffExcerpt(before: string, after: string): DiffSegment[] {
  const k = `${before.length}:${before}\u0000${after}`;
  let excerpt = cache.get(k);
  if (excerpt) excerptCache.hits++;
  else {
    excerpt = excerptOf(changedRegionDiff(before, after));
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(k, excerpt);
  }
  // Copies: a caller may change its rows without changing the cache.
  return excerpt.map((s) => ({ ...s }));
}

/** A word diff cut to the context around its changes, for one line (empty when nothing changed). */
export function excerptOf(segments: readonly DiffSegment[]): DiffSegment[] {
  if (!segments.some((s) => s.op !== 'equal')) return [];
  const out: DiffSegment[] = [];
  let used = 0;
  for (const [i, s] of segments.entries()) {
    if (used >= BUDGET) {
      out.push({ op: 'equal', text: ' …' });
      break;
    }
    let text = s.text;
    if (s.op === 'equal') {
      const first = i === 0;
      const last = i === segments.length - 1;
      if (first) text = clipStart(text);
      else if (last) text = clipEnd(text);
      else if (text.length > CONTEXT * 2) text = `${clipEnd(text.slice(0, CONTEXT + 20))} ${clipStart(text.slice(-CONTEXT - 20))}`;
    } else if (text.length > BUDGET - used) {
      text = `${text.slice(0, Math.max(0, BUDGET - used))}…`;
    }
    // One line in a feed row: line breaks and indentation read as single spaces.
    text = text.replace(/\s+/g, ' ');
    out.push({ op: s.op, text });
    used += text.length;
  }
  return out;
}
