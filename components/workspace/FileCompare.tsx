import clsx from 'clsx';
import { lineDiff } from '@/lib/ui/diff';
import { EmptyState } from '../ui/States';

const ROW = { equal: '', insert: 'bg-create-soft/70', delete: 'bg-delete-soft/70' } as const;
const SIGN = { equal: ' ', insert: '+', delete: '−' } as const;

/** A unified line diff of one file between two sequences. */
export function FileCompare({ before, after, fromSeq, toSeq }: { before: string | null; after: string; fromSeq: number; toSeq: number }) {
  const lines = lineDiff(before ?? '', after);
  const changed = lines.filter((l) => l.op !== 'equal').length;
  return (
    <div data-testid="file-compare">
      <div className="flex items-center gap-3 border-b border-line bg-zinc-50/60 px-4 py-1.5 text-[12px] text-muted">
        <span className="font-mono">
          #{fromSeq} → #{toSeq}
        </span>
        {before === null && <span className="text-create">the file did not exist at #{fromSeq}</span>}
        <span className="ml-auto font-mono">
          <span className="text-create">+{lines.filter((l) => l.op === 'insert').length}</span>{' '}
          <span className="text-delete">−{lines.filter((l) => l.op === 'delete').length}</span> lines
        </span>
      </div>
      {changed === 0 ? (
        <EmptyState title={`Identical at #${fromSeq} and #${toSeq}`} />
      ) : (
        <div className="overflow-x-auto py-2 font-mono text-[12.5px] leading-[1.6]">
          {lines.map((l, i) => (
            <div key={i} data-testid={`compare-${l.op}`} className={clsx('grid grid-cols-[40px_40px_16px_minmax(0,1fr)]', ROW[l.op])}>
              <span className="select-none pr-2 text-right text-faint">{l.oldNo ?? ''}</span>
              <span className="select-none pr-2 text-right text-faint">{l.newNo ?? ''}</span>
              <span className={clsx('select-none', l.op === 'insert' ? 'text-create' : l.op === 'delete' ? 'text-delete' : 'text-faint')}>{SIGN[l.op]}</span>
              <span className="whitespace-pre-wrap break-words">{l.text || ' '}</span>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
