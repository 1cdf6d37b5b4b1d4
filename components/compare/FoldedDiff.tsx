'use client';

import { useMemo, useState } from 'react';
import { wordDiff } from '@/lib/ui/diff';
import { diffLines, foldRows, REVEAL_STEP, type DiffLineOfWords } from '@/lib/ui/diff-lines';

function Line({ line }: { line: DiffLineOfWords }) {
  return (
    <div data-testid="diff-line" data-changed={line.changed ? 'true' : undefined} className={line.changed ? 'min-h-6 bg-amber-50/60 px-3' : 'min-h-6 px-3'}>
      {line.segments.map((s, i) =>
        s.op === 'insert' ? (
          <ins key={i} data-testid="diff-insert" className="rounded-sm bg-create-soft text-create no-underline">{s.text}</ins>
        ) : s.op === 'delete' ? (
          <del key={i} data-testid="diff-delete" className="rounded-sm bg-delete-soft text-delete decoration-delete/50">{s.text}</del>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </div>
  );
}

/**
 * The word diff of `before` → `after` line by line, unchanged stretches folded away but for three
 * lines around each change; each fold's button shows the next 40 of its lines.
 */
export function FoldedDiff({ before, after, testId = 'folded-diff' }: { before: string; after: string; testId?: string }) {
  const lines = useMemo(() => diffLines(wordDiff(before, after)), [before, after]);
  const [revealed, setRevealed] = useState<ReadonlyMap<number, number>>(new Map());
  const rows = foldRows(lines, revealed);
  return (
    <div data-testid={testId} className="whitespace-pre-wrap break-words py-1 font-mono text-[12.5px] leading-6 text-ink [overflow-wrap:anywhere]">
      {rows.map((row) =>
        row.kind === 'line' ? (
          <Line key={row.index} line={lines[row.index]!} />
        ) : (
          <button
            key={`fold-${row.start}`}
            type="button"
            data-testid="show-more-lines"
            onClick={() => setRevealed((m) => new Map(m).set(row.start, (m.get(row.start) ?? 0) + REVEAL_STEP))}
            className="my-0.5 block w-full border-y border-line bg-zinc-50 px-3 py-0.5 text-left font-sans text-[12px] text-accent hover:bg-zinc-100"
          >
            Show {Math.min(REVEAL_STEP, row.count)} more {row.count === 1 ? 'line' : 'lines'}
            <span className="text-muted"> ({row.count} unchanged)</span>
          </button>
        ),
      )}
    </div>
  );
}
