'use client';

import { useMemo, useState } from 'react';
import clsx from 'clsx';
import { lineDiff, type DiffLine } from '@/lib/ui/diff';
import { foldRows, REVEAL_STEP } from '@/lib/ui/diff-lines';
import { firstWindow, LINE_STEP, MAX_LINES, showEarlier, showLater } from '@/lib/ui/line-window';
import { EmptyState } from '../ui/States';
import { WindowButton } from './WindowButton';

const ROW = { equal: '', insert: 'bg-create-soft/70', delete: 'bg-delete-soft/70' } as const;
const SIGN = { equal: ' ', insert: '+', delete: '−' } as const;

/** The old and new line numbers and the sign, as one fixed-width gutter string (the row's `::before`). */
function gutter(l: DiffLine): string {
  return `${String(l.oldNo ?? '').padStart(4)} ${String(l.newNo ?? '').padStart(4)} ${SIGN[l.op]}`;
}

/**
 * A unified line diff of one file between two sequences. Unchanged stretches fold away but for
 * three lines around each change (each fold shows 40 more on request), and the rows drawn are a
 * window (line-window.ts), so a 5,000-line file created between the two stays a bounded page.
 * Each row is one element: its gutter is its `::before`.
 */
export function FileCompare({ before, after, fromSeq, toSeq }: { before: string | null; after: string; fromSeq: number; toSeq: number }) {
  const lines = useMemo(() => lineDiff(before ?? '', after), [before, after]);
  const marks = useMemo(() => lines.map((l) => ({ changed: l.op !== 'equal' })), [lines]);
  const [revealed, setRevealed] = useState<ReadonlyMap<number, number>>(new Map());
  const rows = useMemo(() => foldRows(marks, revealed), [marks, revealed]);
  const [win, setWin] = useState(() => firstWindow(rows.length));
  const inserted = marks.reduce((n, m, i) => n + (m.changed && lines[i]!.op === 'insert' ? 1 : 0), 0);
  const deleted = marks.reduce((n, m, i) => n + (m.changed && lines[i]!.op === 'delete' ? 1 : 0), 0);
  const end = Math.min(win.end, rows.length);
  return (
    <div data-testid="file-compare">
      <div className="flex flex-wrap items-center gap-3 border-b border-line bg-zinc-50/60 px-4 py-1.5 text-[12px] text-muted">
        <span className="font-mono">
          #{fromSeq} → #{toSeq}
        </span>
        {before === null && <span className="text-create">the file did not exist at #{fromSeq}</span>}
        <span className="ml-auto font-mono">
          <span className="text-create">+{inserted}</span> <span className="text-delete">−{deleted}</span> lines
        </span>
      </div>
      {inserted + deleted === 0 ? (
        <EmptyState title={`Identical at #${fromSeq} and #${toSeq}`} />
      ) : (
        <div className="overflow-x-auto py-2 font-mono text-[12.5px] leading-[1.6]" data-testid="compare-rows" data-rows={`${win.start}-${end}`}>
          <WindowButton edge="earlier" hidden={win.start - 1} step={LINE_STEP} onClick={() => setWin((w) => showEarlier(w))} testId="compare-earlier" />
          {rows.slice(win.start - 1, end).map((row) => {
            if (row.kind === 'fold') {
              return (
                <button
                  key={`fold-${row.start}`}
                  type="button"
                  data-testid="compare-fold"
                  onClick={() => {
                    setRevealed((m) => new Map(m).set(row.start, (m.get(row.start) ?? 0) + REVEAL_STEP));
                    // The fold becomes its lines (and a smaller fold): the window grows by as many rows, so its last rows stay drawn.
                    const added = Math.min(REVEAL_STEP, row.count) - (row.count <= REVEAL_STEP ? 1 : 0);
                    setWin((w) => ({ start: Math.max(w.start, w.end + added - MAX_LINES + 1), end: w.end + added }));
                  }}
                  className="my-0.5 block w-full border-y border-line bg-zinc-50 px-3 py-0.5 text-left font-sans text-[12px] text-accent hover:bg-zinc-100 focus-visible:-outline-offset-2"
                >
                  Show {Math.min(REVEAL_STEP, row.count)} more unchanged {row.count === 1 ? 'line' : 'lines'}
                  <span className="text-muted"> ({row.count} hidden)</span>
                </button>
              );
            }
            const l = lines[row.index]!;
            return (
              <div
                key={row.index}
                data-testid={`compare-${l.op}`}
                data-gutter={gutter(l)}
                className={clsx(
                  'grid grid-cols-[12ch_minmax(0,1fr)] whitespace-pre-wrap break-words before:select-none before:whitespace-pre before:pr-2 before:content-[attr(data-gutter)]',
                  ROW[l.op],
                  l.op === 'insert' ? 'before:text-create' : l.op === 'delete' ? 'before:text-delete' : 'before:text-faint',
                )}
              >
                {l.text || ' '}
              </div>
            );
          })}
          <WindowButton edge="later" hidden={rows.length - end} step={LINE_STEP} onClick={() => setWin((w) => showLater(w, rows.length))} testId="compare-later" />
        </div>
      )}
    </div>
  );
}
