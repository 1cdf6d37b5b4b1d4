'use client';

import { useMemo } from 'react';
import Link from '@/components/ui/Link';
import type { LiveRecord } from '@/lib/ui/api-types';
import { LINE_STEP, showEarlier, showLater } from '@/lib/ui/line-window';
import { useLineWindow } from '@/lib/ui/hooks/use-line-window';
import type { FileSection } from '@/lib/ui/sections';
import { routes, sectionAnchor } from '@/lib/ui/routes';
import { recordTitle } from '@/lib/ui/record-text';
import { FileLines } from './FileLines';
import { WindowButton } from './WindowButton';

type Block = { kind: 'lines'; start: number; end: number } | { kind: 'section'; section: FileSection<LiveRecord>; start: number; end: number };

/** The file cut into record sections and the lines between them (1-based, inclusive); overlapping sections are skipped. */
function fileBlocks(sections: FileSection<LiveRecord>[], total: number): Block[] {
  const blocks: Block[] = [];
  let line = 1;
  for (const section of sections) {
    if (section.lineStart < line) continue;
    if (section.lineStart > line) blocks.push({ kind: 'lines', start: line, end: section.lineStart - 1 });
    const end = Math.min(section.lineEnd, total);
    blocks.push({ kind: 'section', section, start: section.lineStart, end });
    line = end + 1;
  }
  if (line <= total) blocks.push({ kind: 'lines', start: line, end: total });
  return blocks;
}

/**
 * A text file with line numbers; each record's lines are framed and labelled with a link to its
 * lineage and an anchor (`#record-<id>`) of its own. A window of the lines is drawn (line-window.ts),
 * so a long file stays a light page; a link to a section further down opens the window there.
 */
export function SectionedFile({ agentId, text, sections, seq }: { agentId: string; text: string; sections: FileSection<LiveRecord>[]; seq: number }) {
  const lines = useMemo(() => {
    const all = text.split('\n');
    if (all[all.length - 1] === '') all.pop();
    return all;
  }, [text]);
  const total = lines.length;
  const blocks = useMemo(() => fileBlocks(sections, total), [sections, total]);
  const starts = useMemo(
    () => new Map(blocks.flatMap((b) => (b.kind === 'section' ? [[b.section.record.record_id, b.start] as const] : []))),
    [blocks],
  );
  const { win, setWin, target } = useLineWindow(total, starts);
  const drawn = blocks.filter((b) => b.end >= win.start && b.start <= win.end);

  return (
    <div className="overflow-x-auto py-2 font-mono text-[12.5px] leading-[1.6] text-ink" data-testid="file-content" data-lines={`${win.start}-${win.end}`} data-total={total}>
      <WindowButton edge="earlier" hidden={win.start - 1} step={LINE_STEP} onClick={() => setWin((w) => showEarlier(w))} testId="file-earlier" />
      {drawn.map((block) => {
        const from = Math.max(block.start, win.start);
        const shown = lines.slice(from - 1, Math.min(block.end, win.end));
        if (block.kind === 'lines') return <FileLines key={`gap-${block.start}`} lines={shown} from={from} />;
        const { record } = block.section;
        return (
          <div
            key={record.record_id}
            id={sectionAnchor(record.record_id)}
            data-testid="record-section"
            data-record-id={record.record_id}
            data-target={target === record.record_id ? 'true' : undefined}
            className="relative my-0.5 scroll-mt-16 border-l-2 border-accent/60 bg-accent-soft/30 hover:bg-accent-soft/60 data-[target]:bg-accent-soft/70"
          >
            <span className="absolute right-2 top-0.5 z-[1] flex items-center gap-1 rounded border border-line bg-white px-1.5 font-sans text-[11px] shadow-xs">
              <Link
                href={routes.lineage(agentId, record.record_id, record.seq)}
                className="text-accent hover:underline"
                title={`record ${record.record_id} · last changed at #${record.seq}`}
                data-testid="section-lineage-link"
              >
                {recordTitle(record)} · #{record.seq}
                {record.seq === seq && <span className="ml-1 text-update">●</span>}
              </Link>
              <a href={`#${sectionAnchor(record.record_id)}`} className="-my-[4px] inline-flex h-[24px] min-w-[24px] items-center justify-center text-muted hover:text-accent" aria-label={`Link to the section “${recordTitle(record)}”`} data-testid="section-anchor">
                #
              </a>
            </span>
            <FileLines lines={shown} from={from} />
          </div>
        );
      })}
      <WindowButton edge="later" hidden={total - win.end} step={LINE_STEP} onClick={() => setWin((w) => showLater(w, total))} testId="file-later" />
    </div>
  );
}
