import Link from '@/components/ui/Link';
import type { CompareMemory } from '@/lib/history/queries/compare';
import { renameContentKey } from '@/lib/history/provenance';
import { recordTitle } from '@/lib/ui/record-text';
import { routes } from '@/lib/ui/routes';
import { OpBadge } from '../ui/OpBadge';
import { PathText } from '../ui/PathText';
import { SafeName } from '../ui/SafeName';
import { FoldedDiff } from './FoldedDiff';
import { HydratedDiff } from './HydratedDiff';
import { whitespaceChangeWords } from '@/lib/ui/whitespace-words';

export type MemoryChange =
  | { kind: 'created'; after: CompareMemory }
  | { kind: 'deleted'; before: CompareMemory }
  | { kind: 'updated'; before: CompareMemory; after: CompareMemory; whitespace_only: boolean }
  | { kind: 'moved'; before: CompareMemory; after: CompareMemory; content_changed: boolean };

const OP = { created: 'create', deleted: 'delete', updated: 'update', moved: 'move' } as const;

function Place({ memory }: { memory: CompareMemory }) {
  return (
    <span className="inline-flex min-w-0 flex-wrap items-baseline gap-1 font-mono text-[11.5px] text-muted">
      {memory.origin_file ? <PathText path={memory.origin_file} /> : <span>(no file)</span>}
      {memory.heading && <span>§ <SafeName name={memory.heading} max={60} /></span>}
    </span>
  );
}

/**
 * What a move did besides moving: "renamed" (its heading changed), "edited" (its body changed), both, or nothing.
 * `content_changed` compares whole texts, heading line included; the body is the text without it (provenance.ts).
 */
export function moveChangeWords(change: { before: CompareMemory; after: CompareMemory; content_changed: boolean }): string | null {
  const renamed = change.before.heading !== change.after.heading;
  const edited = change.content_changed && (!renamed || renameContentKey(change.before.content) !== renameContentKey(change.after.content));
  if (renamed && edited) return 'renamed and edited';
  if (renamed) return 'renamed';
  return edited ? 'and edited' : null;
}

/** A memory that stayed in its file under another heading (a move by provenance.ts' rename rule). */
const renamedInPlace = (change: { before: CompareMemory; after: CompareMemory }) =>
  change.before.origin_file === change.after.origin_file && change.before.heading !== change.after.heading;

/**
 * One memory's net change: its title, where it is (from → to for a move), and its word diff — drawn by
 * the server when `serverDiff` (the first screen), else once the page has hydrated.
 */
export function MemoryEntry({ agentId, change, serverDiff }: { agentId: string; change: MemoryChange; serverDiff: boolean }) {
  const shown = change.kind === 'deleted' ? change.before : change.after;
  const before = change.kind === 'created' ? '' : change.before.content;
  const after = change.kind === 'deleted' ? '' : change.after.content;
  const textChanged = before !== after;
  // A text that differs only in whitespace at line ends has a word diff that shows nothing: it is said in words.
  const whitespace = change.kind === 'updated' || change.kind === 'moved' ? whitespaceChangeWords(before, after) : null;
  return (
    <li data-testid="compare-memory" data-kind={change.kind} className="rounded-md border border-line bg-white">
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-zinc-50/70 px-3 py-1.5 text-[12px]">
        <OpBadge op={OP[change.kind]} renamed={change.kind === 'moved' && renamedInPlace(change)} />
        <Link href={routes.lineage(agentId, shown.record_id, shown.seq)} className="min-w-0 font-semibold text-accent hover:underline" data-testid="compare-memory-title">
          <SafeName name={recordTitle(shown)} />
        </Link>
        {change.kind === 'moved' ? (
          <span className="flex min-w-0 flex-wrap items-baseline gap-1" data-testid="compare-move">
            <Place memory={change.before} /> <span aria-hidden>→</span><span className="sr-only">{renamedInPlace(change) ? 'renamed to' : 'moved to'}</span> <Place memory={change.after} />
          </span>
        ) : (
          <Place memory={shown} />
        )}
        {change.kind === 'moved' && moveChangeWords(change) && <span className="text-[11px] text-muted" data-testid="compare-move-words">{moveChangeWords(change)}</span>}
        {change.kind === 'updated' && change.whitespace_only && (
          <span className="rounded-sm border border-line px-1 text-[11px] text-muted" data-testid="compare-whitespace-only">whitespace only</span>
        )}
      </header>
      <div className="px-1">
        {whitespace !== null ? (
          <p className="px-3 py-2 text-[12px] text-muted" data-testid="compare-whitespace-words">{whitespace}</p>
        ) : textChanged ? (serverDiff ? <FoldedDiff before={before} after={after} /> : <HydratedDiff before={before} after={after} />) : (
          <p className="px-3 py-2 text-[12px] text-muted" data-testid="compare-text-unchanged">Text unchanged.</p>
        )}
      </div>
    </li>
  );
}
