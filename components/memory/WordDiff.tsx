import clsx from 'clsx';
import type { DiffSegment } from '@/lib/ui/diff';

/** Renders a word diff computed by `lib/ui/diff` (insertions green, deletions struck through red). */
export function WordDiff({ segments, className, testId = 'word-diff' }: { segments: DiffSegment[]; className?: string; testId?: string }) {
  return (
    <div data-testid={testId} className={clsx('whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-ink [overflow-wrap:anywhere]', className)}>
      {segments.map((s, i) =>
        s.op === 'insert' ? (
          <ins key={i} data-testid="diff-insert" className="rounded-sm bg-create-soft text-create no-underline decoration-transparent">
            {s.text}
          </ins>
        ) : s.op === 'delete' ? (
          <del key={i} data-testid="diff-delete" className="rounded-sm bg-delete-soft text-delete decoration-delete/50">
            {s.text}
          </del>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </div>
  );
}

/** "+12 −3 words". */
export function DiffStatsBadge({ inserted, deleted }: { inserted: number; deleted: number }) {
  return (
    <span className="font-mono text-[11px] tabular-nums" data-testid="diff-stats">
      <span className="text-create">+{inserted}</span> <span className="text-delete">−{deleted}</span>
      <span className="text-faint"> words</span>
    </span>
  );
}
