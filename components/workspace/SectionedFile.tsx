import Link from '@/components/ui/Link';
import type { LiveRecord } from '@/lib/ui/api-types';
import type { FileSection } from '@/lib/ui/sections';
import { routes } from '@/lib/ui/routes';
import { recordTitle } from '@/lib/ui/record-text';

function Lines({ lines, from }: { lines: string[]; from: number }) {
  return (
    <>
      {lines.map((line, i) => (
        <div key={from + i} className="grid grid-cols-[48px_minmax(0,1fr)]">
          <span className="select-none pr-3 text-right text-faint">{from + i}</span>
          <span className="whitespace-pre-wrap break-words">{line || ' '}</span>
        </div>
      ))}
    </>
  );
}

/** A text file with line numbers; each record's lines are framed and labelled with a link to its lineage. */
export function SectionedFile({ agentId, text, sections, seq }: { agentId: string; text: string; sections: FileSection<LiveRecord>[]; seq: number }) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const blocks: React.ReactNode[] = [];
  let line = 1;
  for (const section of sections) {
    if (section.lineStart < line) continue;
    if (section.lineStart > line) {
      blocks.push(<Lines key={`gap-${line}`} lines={lines.slice(line - 1, section.lineStart - 1)} from={line} />);
    }
    const end = Math.min(section.lineEnd, lines.length);
    blocks.push(
      <div key={section.record.record_id} data-testid="record-section" data-record-id={section.record.record_id} className="relative my-0.5 border-l-2 border-accent/60 bg-accent-soft/30 hover:bg-accent-soft/60">
        <Link
          href={routes.lineage(agentId, section.record.record_id, section.record.seq)}
          className="absolute right-2 top-0.5 z-[1] rounded border border-line bg-white px-1.5 font-sans text-[11px] text-accent shadow-xs hover:underline"
          title={`record ${section.record.record_id} · last changed at #${section.record.seq}`}
          data-testid="section-lineage-link"
        >
          {recordTitle(section.record)} · #{section.record.seq}
          {section.record.seq === seq && <span className="ml-1 text-update">●</span>}
        </Link>
        <Lines lines={lines.slice(section.lineStart - 1, end)} from={section.lineStart} />
      </div>,
    );
    line = end + 1;
  }
  if (line <= lines.length) blocks.push(<Lines key={`gap-${line}`} lines={lines.slice(line - 1)} from={line} />);
  return (
    <div className="overflow-x-auto py-2 font-mono text-[12.5px] leading-[1.6] text-ink" data-testid="file-content">
      {blocks}
    </div>
  );
}
