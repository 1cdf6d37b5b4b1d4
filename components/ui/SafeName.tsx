/**
 * Names from a workspace or a key holder (agent names, file names) are untrusted text. Characters that
 * reorder or hide text — bidirectional overrides and isolates, zero-width and other invisible or
 * control characters — are shown as a visible `U+XXXX` badge instead of acting on the page, so
 * `invoice\u202Egpj.md` cannot pass for `invoicedm.jpg`. Very long names are cut, the full name in a title.
 */
import { Fragment } from 'react';
import { codeOf, HIDDEN, visibleName } from '@/lib/ui/visible-name';

export { visibleName };

/** Pieces of a name: plain text, and hidden characters to badge. */
function pieces(name: string): { text: string; hidden: boolean }[] {
  const out: { text: string; hidden: boolean }[] = [];
  let last = 0;
  for (const match of name.matchAll(HIDDEN)) {
    if (match.index > last) out.push({ text: name.slice(last, match.index), hidden: false });
    out.push({ text: match[0], hidden: true });
    last = match.index + match[0].length;
  }
  if (last < name.length) out.push({ text: name.slice(last), hidden: false });
  return out;
}

/** Cuts to `max` code points (never inside a surrogate pair), with an ellipsis. */
function cut(name: string, max: number): { text: string; cut: boolean } {
  const points = [...name];
  return points.length > max ? { text: `${points.slice(0, max - 1).join('')}…`, cut: true } : { text: name, cut: false };
}

export function SafeName({ name, max = 80, testId }: { name: string; max?: number; testId?: string }) {
  const short = cut(name, max);
  const parts = pieces(short.text);
  const altered = short.cut || parts.some((p) => p.hidden);
  return (
    <span title={altered ? visibleName(name) : undefined} data-testid={testId} data-safe-name="" style={{ unicodeBidi: 'isolate' }}>
      {parts.map((part, i) =>
        part.hidden ? (
          <span key={i} className="mx-px rounded-sm bg-amber-100 px-0.5 font-mono text-[0.8em] text-amber-800" data-testid="hidden-char">
            {codeOf(part.text)}
          </span>
        ) : (
          <Fragment key={i}>{part.text}</Fragment>
        ),
      )}
    </span>
  );
}
