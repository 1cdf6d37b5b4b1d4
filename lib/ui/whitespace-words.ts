/**
 * What changed between two texts that differ only in whitespace at the ends of their lines and of
 * the text (compare-result.ts `onlyWhitespaceDiffers`), in words: their word diff shows nothing a
 * reader can see (a line break, a space at a line's end), so the compare page says it instead.
 */
import { rustTrimEnd } from '@/lib/core/rust-str';
import { moveContentKey } from '@/lib/history/provenance';

const lineBreaks = (text: string) => (text.match(/\r\n|\r|\n/g) ?? []).length;

/** "a line break added at the end", "2 line breaks removed from the end". */
function endWords(before: string, after: string): string | null {
  // Line endings aside (said apart).
  const end = (text: string) => text.slice(rustTrimEnd(text).length).replace(/\r\n?/g, '\n');
  const [a, b] = [end(before), end(after)];
  if (a === b) return null;
  const d = lineBreaks(b) - lineBreaks(a);
  if (d === 0) return 'spaces at the end of the text changed';
  const n = Math.abs(d);
  return `${n === 1 ? 'a line break' : `${n} line breaks`} ${d > 0 ? 'added at the end' : 'removed from the end'}`;
}

/** "spaces at the end of line 2 changed", "… of lines 2 and 5", "… of 4 lines". */
function lineEndWords(before: string, after: string): string | null {
  const lines = (text: string) => rustTrimEnd(text).split(/\r\n|\r|\n/);
  const [a, b] = [lines(before), lines(after)];
  const changed: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) changed.push(i + 1);
  if (changed.length === 0) return null;
  const which = changed.length === 1 ? `line ${changed[0]}`
    : changed.length === 2 ? `lines ${changed[0]} and ${changed[1]}`
      : `${changed.length} lines`;
  return `spaces at the end of ${which} changed`;
}

/**
 * "Only whitespace changed: a line break added at the end." — null unless the texts differ and
 * only so (as a move compares texts: `moveContentKey`).
 */
export function whitespaceChangeWords(before: string, after: string): string | null {
  if (before === after || moveContentKey(before) !== moveContentKey(after)) return null;
  const crlf = (text: string) => /\r/.test(text);
  const parts = [
    lineEndWords(before, after),
    endWords(before, after),
    crlf(before) !== crlf(after) ? 'line endings changed' : null,
  ].filter((p): p is string => p !== null);
  return `Only whitespace changed: ${parts.length > 0 ? parts.join('; ') : 'at the ends of lines'}.`;
}
