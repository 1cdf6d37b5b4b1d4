/**
 * The changed words of an update, for a one-line feed row: the word diff (lib/ui/diff) with long
 * unchanged stretches cut down to a few words of context around each change. Pure.
 */
import { wordDiff, type DiffSegment } from './diff';

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

/** The diff of `before` → `after` with only the context around the changes kept (empty when equal). */
export function diffExcerpt(before: string, after: string): DiffSegment[] {
  const segments = wordDiff(before, after);
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
