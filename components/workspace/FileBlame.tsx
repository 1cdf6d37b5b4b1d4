'use client';

import { useMemo } from 'react';
import clsx from 'clsx';
import type { BlameBlock, FileBlame as Blame } from '@/lib/history/queries/blame';
import { plural } from '@/lib/ui/format';
import { LINE_STEP, showEarlier, showLater } from '@/lib/ui/line-window';
import { useLineWindow } from '@/lib/ui/hooks/use-line-window';
import { sectionAnchor } from '@/lib/ui/routes';
import { useFileBlame } from '@/lib/ui/hooks/use-workspace';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { BlameGutter } from './BlameGutter';
import { FileLines } from './FileLines';
import { WindowButton } from './WindowButton';

/** The block's lines inside the window `[from, to]` (a block longer than the window is cut, its gutter kept). */
function BlockLines({ block, from, to }: { block: BlameBlock; from: number; to: number }) {
  const start = Math.max(block.line_start, from);
  return (
    <div className="min-w-0 py-1 font-mono text-[12.5px] leading-[1.6] text-ink">
      <FileLines lines={block.lines.slice(start - block.line_start, Math.min(block.line_end, to) - block.line_start + 1)} from={start} gutter="narrow" />
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
  if (blame.isPending) return <LoadingRows rows={8} label="Loading blame" />;
  if (blame.error) return <ErrorState error={blame.error} retry={() => void blame.refetch()} />;
  if (blame.data.binary) return <EmptyState title="Binary file">A binary file has no lines to blame.</EmptyState>;
  if (blame.data.blocks.length === 0) return <EmptyState title="Empty file">Created or last changed at #{blame.data.file_changed.seq}.</EmptyState>;
  return <BlameBlocks agentId={agentId} seq={seq} path={path} blame={blame.data} />;
}

/** The blocks that meet the window of lines (line-window.ts), with their gutters; a `#record-…` link opens the window at its section. */
function BlameBlocks({ agentId, seq, path, blame }: { agentId: string; seq: number; path: string; blame: Blame }) {
  const { blocks } = blame;
  const total = blocks[blocks.length - 1]!.line_end;
  const starts = useMemo(() => new Map(blocks.flatMap((b) => (b.kind === 'section' ? [[b.record_id, b.line_start] as const] : []))), [blocks]);
  const { win, setWin } = useLineWindow(total, starts);
  const drawn = blocks.filter((b) => b.line_end >= win.start && b.line_start <= win.end);
  return (
    <div data-testid="file-blame" className="py-1" data-lines={`${win.start}-${win.end}`}>
      <WindowButton edge="earlier" hidden={win.start - 1} step={LINE_STEP} onClick={() => setWin((w) => showEarlier(w))} testId="blame-earlier" />
      <ol aria-label={`Blame of ${path} at #${seq}`}>
        {drawn.map((block) => (
          <li
            key={block.line_start}
            id={block.kind === 'section' ? sectionAnchor(block.record_id) : undefined}
            data-testid="blame-block"
            data-kind={block.kind}
            data-lines={`${block.line_start}-${block.line_end}`}
            data-born={block.kind === 'section' ? block.born.seq : undefined}
            data-changed={block.changed.seq}
            data-moved={block.kind === 'section' && block.moved ? block.moved.seq : undefined}
            className={clsx(
              'grid scroll-mt-16 grid-cols-1 border-b border-line sm:grid-cols-[14rem_minmax(0,1fr)]',
              block.kind === 'section' ? 'border-l-2 border-l-accent/60' : 'border-l-2 border-l-transparent',
            )}
          >
            <div className="border-b border-line bg-zinc-50 px-3 py-1 sm:border-b-0 sm:border-r">
              <BlameGutter agentId={agentId} path={path} block={block} />
            </div>
            <BlockLines block={block} from={win.start} to={win.end} />
          </li>
        ))}
      </ol>
      <WindowButton edge="later" hidden={total - win.end} step={LINE_STEP} onClick={() => setWin((w) => showLater(w, total))} testId="blame-more" />
      {blame.unplaced_record_ids.length > 0 && (
        <p className="px-4 py-2 text-[12px] text-muted" data-testid="blame-unplaced">
          {plural(blame.unplaced_record_ids.length, 'memory record')} of this file could not be found in its text; those lines are shown as the file&apos;s.
        </p>
      )}
    </div>
  );
}
