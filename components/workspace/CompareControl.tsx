'use client';

import { useState } from 'react';
import { formText, UrlForm } from '../ui/UrlForm';

const shortcut = 'h-7 whitespace-nowrap rounded-md px-1.5 font-medium text-accent hover:bg-zinc-100';

/** Why `text` cannot be compared with `seq`, in words; null when it can. */
export function compareProblem(text: string, seq: number, latest: number): string | null {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) return `“${text}” is not a sequence number`;
  if (n > latest) return `there is no sequence #${n}: the latest is #${latest}`;
  if (n === seq) return `#${n} is the sequence shown`;
  return null;
}

/**
 * "Compare with" for one file: a sequence number field (the page's `?compare=`, so Enter works
 * before hydration) and two shortcuts — the sync before this one, and the sequence before the
 * last change of the file's memories (`lastChange`, from its records) — instead of a list of every
 * sequence, which for an agent of 2,000 syncs was 2,000 options. While comparing, "Stop comparing".
 */
export function CompareControl({ seq, latest, compare, lastChange, onCompare }: {
  seq: number;
  latest: number;
  compare: number | null;
  /** The newest sequence ≤ seq that changed one of this file's memories, if known. */
  lastChange: number | null;
  onCompare: (seq: number | null) => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const commit = (text: string | null) => {
    const why = text === null ? null : compareProblem(text, seq, latest);
    setProblem(why);
    if (why === null) onCompare(text === null ? null : Number(text));
  };
  const beforeLast = lastChange !== null && lastChange > 0 && lastChange - 1 !== seq && lastChange !== seq ? lastChange - 1 : null;
  return (
    <UrlForm
      fields={['compare']}
      onSubmit={(values) => commit(formText(values, 'compare'))}
      className="inline-flex min-w-0 flex-wrap items-center gap-1.5 text-[12px] text-muted"
    >
      <label htmlFor="compare-seq">Compare with</label>
      <span className="inline-flex items-center rounded-md border border-line bg-white pl-1.5 shadow-xs">
        <span className="font-mono text-faint" aria-hidden="true">#</span>
        <input
          key={compare ?? ''}
          id="compare-seq"
          name="compare"
          type="number"
          min={0}
          inputMode="numeric"
          autoComplete="off"
          defaultValue={compare ?? ''}
          aria-invalid={problem !== null}
          // No `max`: the browser would refuse the form silently; compareProblem says why in words.
          aria-describedby={problem === null ? 'compare-seq-range' : 'compare-seq-range compare-problem'}
          data-testid="compare-seq"
          className="h-7 w-16 bg-transparent px-1 font-mono text-[12px] text-ink outline-none"
        />
      </span>
      <span id="compare-seq-range" className="sr-only">a sequence from 0 to {latest}</span>
      <button type="submit" className="h-7 rounded-md border border-line bg-white px-2 font-medium text-ink shadow-xs hover:bg-zinc-50" data-testid="compare-go">
        Compare
      </button>
      {compare !== null ? (
        <button type="button" className={shortcut} onClick={() => commit(null)} data-testid="compare-clear">
          Stop comparing
        </button>
      ) : (
        <>
          {seq > 0 && (
            <button type="button" className={shortcut} onClick={() => commit(String(seq - 1))} data-testid="compare-previous" title={`Compare with the sync before, #${seq - 1}`}>
              #{seq - 1} <span className="font-normal text-muted">(previous)</span>
            </button>
          )}
          {beforeLast !== null && (
            <button
              type="button"
              className={shortcut}
              onClick={() => commit(String(beforeLast))}
              data-testid="compare-last-change"
              title={`Compare with #${beforeLast}, just before #${lastChange} changed this file's memories`}
            >
              #{beforeLast} <span className="font-normal text-muted">(before the last change, #{lastChange})</span>
            </button>
          )}
        </>
      )}
      {problem && (
        <span id="compare-problem" role="alert" className="basis-full text-delete" data-testid="compare-problem">
          {problem}
        </span>
      )}
    </UrlForm>
  );
}
