/** A window of a version's content around its first match, with the match ranges inside it. */
import type { Range } from './match';

export interface Snippet { snippet: string; highlights: [number, number][] }

const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

export function snippetAround(content: string, ranges: readonly Range[], radius = 60): Snippet {
  const first = ranges[0];
  if (!first) return { snippet: content.length > radius * 2 ? `${content.slice(0, radius * 2)}…` : content, highlights: [] };
  // Widen the window to the later matches that fit in it, so that every word of the query shows.
  let last = first[1];
  for (const [, e] of ranges) if (e - first[0] <= radius * 3) last = Math.max(last, e);
  let start = Math.max(0, first[0] - radius);
  let end = Math.min(content.length, last + radius);
  // Never cut a surrogate pair in two.
  if (start > 0 && isLow(content.charCodeAt(start))) start--;
  if (end < content.length && isLow(content.charCodeAt(end))) end++;
  const lead = start > 0 ? '…' : '';
  const highlights: [number, number][] = [];
  for (const [s, e] of ranges) {
    if (s >= end) break;
    if (s < start || e > end) continue;
    highlights.push([s - start + lead.length, e - start + lead.length]);
  }
  return { snippet: `${lead}${content.slice(start, end)}${end < content.length ? '…' : ''}`, highlights };
}
