'use client';

import { useState } from 'react';
import clsx from 'clsx';
import type { BlameBlock } from '@/lib/history/queries/blame';
import { plural } from '@/lib/ui/format';
import { useFileBlame } from '@/lib/ui/hooks/use-workspace';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { BlameGutter } from './BlameGutter';

/** Blocks drawn at first; the rest on request, so a file of a thousand sections stays a light page. */
const FIRST_BLOCKS = 200;

function BlockLines({ block }: { block: BlameBlock }) {
  return (
    <div className="min-w-0 py-1 font-mono text-[12.5px] leading-[1.6] text-ink">
      {block.lines.map((line, i) => (
        <div key={i} className="grid grid-cols-[40px_minmax(0,1fr)]">
          <span className="select-none pr-3 text-right text-faint">{block.line_start + i}</span>
          <span className="whitespace-pre-wrap [overflow-wrap:anywhere]">{line || ' '}</span>
        </div>
      ))}
    </div>
  );
}

/**
 * The file at `seq` in blocks: each memory section with its gutter (born, last changed, moved, its
 * lineage) and the file's own lines with the sequence that last changed the file. Below 640 px the
 * gutter stacks above its block, so nothing scrolls sideways.
 */
export function FileBlame({ agentId, seq, path }: { agentId: string; seq: number; path: string }) {
  const blame = useFileBlame(agentId, seq, path, true);
  const [shown, setShown] = useState(FIRST_BLOCKS);
  if (blame.isPending) return <LoadingRows rows={8} label="Loading blame" />;
  if (blame.error) return <ErrorState error={blame.error} retry={() => void blame.refetch()} />;
  const { blocks } = blame.data;
  if (blame.data.binary) return <EmptyState title="Binary file">A binary file has no lines to blame.</EmptyState>;
  if (blocks.length === 0) return <EmptyState title="Empty file">Created or last changed at #{blame.data.file_changed.seq}.</EmptyState>;
  const rest = blocks.length - shown;
  return (
    <div data-testid="file-blame" className="py-1">
      <ol aria-label={`Blame of ${path} at #${seq}`}>
        {blocks.slice(0, shown).map((block) => (
          <li
            key={block.line_start}
            data-testid="blame-block"
            data-kind={block.kind}
            data-lines={`${block.line_start}-${block.line_end}`}
            data-born={block.kind === 'section' ? block.born.seq : undefined}
            data-changed={block.changed.seq}
            data-moved={block.kind === 'section' && block.moved ? block.moved.seq : undefined}
            className={clsx(
              'grid grid-cols-1 border-b border-line sm:grid-cols-[14rem_minmax(0,1fr)]',
              block.kind === 'section' ? 'border-l-2 border-l-accent/60' : 'border-l-2 border-l-transparent',
            )}
          >
            <div className="border-b border-line bg-zinc-50 px-3 py-1 sm:border-b-0 sm:border-r">
              <BlameGutter agentId={agentId} path={path} block={block} />
            </div>
            <BlockLines block={block} />
          </li>
        ))}
      </ol>
      {rest > 0 && (
        <button
          type="button"
          onClick={() => setShown((n) => n + FIRST_BLOCKS)}
          className="m-3 rounded-md border border-line bg-white px-3 py-1 text-[12px] font-medium text-accent hover:bg-zinc-50"
          data-testid="blame-more"
        >
          Show {plural(Math.min(rest, FIRST_BLOCKS), 'more block')} of {rest}
        </button>
      )}
      {blame.data.unplaced_record_ids.length > 0 && (
        <p className="px-4 py-2 text-[12px] text-muted" data-testid="blame-unplaced">
          {plural(blame.data.unplaced_record_ids.length, 'memory record')} of this file could not be found in its text; those lines are shown as the file&apos;s.
        </p>
      )}
    </div>
  );
}
