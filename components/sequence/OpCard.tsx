import { memo } from 'react';
import Link from '@/components/ui/Link';
import type { SequenceOp } from '@/lib/ui/api-types';
import { diffStats, wordDiff } from '@/lib/ui/diff';
import { shortId } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { recordTitle } from '@/lib/ui/record-text';
import { DiffStatsBadge, WordDiff } from '../memory/WordDiff';
import { whitespaceChangeWords } from '@/lib/ui/whitespace-words';
import { Badge } from '../ui/Badge';
import { OpBadge } from '../ui/OpBadge';
import { ShortId } from '../ui/ShortId';
import { PathText } from '../ui/PathText';

/** A move's two sides, each opening the workspace where that file holds the memory; a rename in one file, that file. */
function MoveFiles({ agentId, seq, op }: { agentId: string; seq: number; op: SequenceOp }) {
  const link = 'font-mono text-[11px] text-accent hover:underline';
  if (renamedInPlace(op)) {
    return (
      <p className="mb-1.5 text-[12px] text-muted" data-testid="op-move" data-renamed="">
        renamed in{' '}
        <Link href={routes.workspace(agentId, seq, op.origin_file ?? undefined)} className={link} data-testid="op-move-to">
          <PathText path={op.origin_file!} />
        </Link>
      </p>
    );
  }
  return (
    <p className="mb-1.5 text-[12px] text-muted" data-testid="op-move">
      moved from{' '}
      <Link href={routes.workspace(agentId, seq - 1, op.from_file ?? undefined)} className={link} data-testid="op-move-from">
        {op.from_file ? <PathText path={op.from_file} /> : '—'}
      </Link>{' '}
      →{' '}
      <Link href={routes.workspace(agentId, seq, op.origin_file ?? undefined)} className={link} data-testid="op-move-to">
        {op.origin_file ? <PathText path={op.origin_file} /> : '—'}
      </Link>
    </p>
  );
}

/** A move within one file: the section's heading changed, its body kept (provenance.ts). */
const renamedInPlace = (op: SequenceOp) => op.op === 'move' && op.from_file != null && op.from_file === op.origin_file;

/** One record operation of a sync: created text, the word diff of an update, a move's files, or the deleted text. */
function OpCardView({ agentId, seq, op }: { agentId: string; seq: number; op: SequenceOp }) {
  const segments = op.op === 'update' ? wordDiff(op.previous_content ?? '', op.content) : null;
  // A text changed only in whitespace at line ends: its word diff would show nothing, so it is said in words (as compare and lineage do).
  const whitespace = op.op === 'update' ? whitespaceChangeWords(op.previous_content ?? '', op.content) : null;
  return (
    <article id={`op-${op.record_id}`} data-testid="op-card" data-op={op.op} data-record-id={op.record_id} className="scroll-mt-20 rounded-md border border-line bg-white target:border-accent target:ring-2 target:ring-accent/20">
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-zinc-50/70 px-3 py-1.5">
        <OpBadge op={op.op} renamed={renamedInPlace(op)} />
        <Link href={routes.lineage(agentId, op.record_id, seq)} className="min-w-0 font-medium wrap-anywhere text-ink hover:text-accent hover:underline" data-testid="op-record-link">
          {recordTitle(op)}
        </Link>
        <ShortId id={op.record_id} />
        {op.moved_from && (
          <Link href={routes.lineage(agentId, op.moved_from)} className="text-[11px] text-accent hover:underline" data-testid="op-moved-from" title={op.moved_from} data-full-id={op.moved_from}>
            {renamedInPlace(op) ? 'renamed' : 'moved'} from {shortId(op.moved_from)}
          </Link>
        )}
        <span className="ml-auto flex items-center gap-2">
          {segments && whitespace === null && <DiffStatsBadge {...diffStats(segments)} />}
          <Badge>{op.memory_type}</Badge>
          {op.origin_file && <PathText path={op.origin_file} className="text-[11px] text-muted" />}
        </span>
      </header>
      <div className="px-3 py-2">
        {op.op === 'move' && <MoveFiles agentId={agentId} seq={seq} op={op} />}
        {whitespace !== null ? (
          <p className="text-[12px] text-muted" data-testid="op-whitespace">{whitespace}</p>
        ) : segments ? (
          <WordDiff segments={segments} />
        ) : op.op === 'delete' ? (
          <pre className="whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-delete line-through decoration-delete/30">
            {op.previous_content ?? op.content}
          </pre>
        ) : (
          <pre className="whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-ink">{op.content}</pre>
        )}
      </div>
    </article>
  );
}

/** Memoised: a list that loads another page redraws only the new cards. */
export const OpCard = memo(OpCardView);
