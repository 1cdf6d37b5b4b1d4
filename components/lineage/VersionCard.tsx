import { memo } from 'react';
import Link from '@/components/ui/Link';
import clsx from 'clsx';
import type { LineageVersion } from '@/lib/ui/api-types';
import { diffStats, wordDiff } from '@/lib/ui/diff';
import { formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { MemoryMarkdown } from '../memory/MemoryMarkdown';
import { DiffStatsBadge, WordDiff } from '../memory/WordDiff';
import { OpBadge } from '../ui/OpBadge';
import { RelativeTime } from '../ui/RelativeTime';
import { MoveStep } from './MoveStep';
import { whitespaceChangeWords } from '@/lib/ui/whitespace-words';
import { SafeName } from '../ui/SafeName';

const DOT = { create: 'bg-create', update: 'bg-amber-500', delete: 'bg-delete', move: 'bg-violet-500' } as const;

/** Fields other than the text that changed since the previous version ("file", "status", …). */
function metaChanges(version: LineageVersion, previous: LineageVersion | undefined): string[] {
  if (!previous) return [];
  const out: string[] = [];
  // A move names both files itself (MoveStep).
  if (version.origin_file !== previous.origin_file && version.op !== 'move') out.push(`file → ${version.origin_file ?? '—'}`);
  if (version.status !== previous.status && version.op !== 'delete') out.push(`status → ${version.status}`);
  if (version.memory_type !== previous.memory_type) out.push(`type → ${version.memory_type}`);
  if (version.heading !== previous.heading && version.heading) out.push(`heading → ${version.heading}`);
  else if (version.heading !== previous.heading && version.op === 'move') out.push('heading removed');
  return out;
}

/**
 * A version below the first screen as the server renders it: its place in the list (anchor, seq,
 * op) without the text or the diff, which the browser draws once the page has hydrated — a page of
 * 50 versions costs the server the first screen's diffs and markup, not the whole page's.
 */
function DeferredVersion({ agentId, version }: { agentId: string; version: LineageVersion }) {
  return (
    <li id={`v${version.seq}`} data-testid="version" data-seq={version.seq} data-op={version.op} data-record-id={version.record_id} data-deferred="" className="group relative scroll-mt-20 pl-8">
      <span className={clsx('absolute left-[7px] top-3 h-3 w-3 rounded-full ring-4 ring-canvas', DOT[version.op])} aria-hidden />
      <article className="rounded-md border border-line bg-white" aria-busy="true">
        <header className="flex flex-wrap items-center gap-2 border-b border-line bg-zinc-50/70 px-3 py-1.5 text-[12px]">
          {/* A plain anchor, the markup next/link draws: the place is replaced by the full card right after hydration, so its link never needs next/link's client side. */}
          <a href={routes.sequence(agentId, version.seq)} className="font-mono font-semibold text-accent hover:underline">
            #{version.seq}
          </a>
          <OpBadge op={version.op} />
        </header>
        <div className="h-16" />
      </article>
    </li>
  );
}

/** One version in the lineage timeline, with its word diff against the previous version or its full text. */
function VersionCardView({ agentId, version, previous, mode, deferred = false }: {
  agentId: string;
  version: LineageVersion;
  previous: LineageVersion | undefined;
  mode: 'diff' | 'full';
  /** Drawn as its place only (DeferredVersion): the server's render of a version below the first screen. */
  deferred?: boolean;
}) {
  if (deferred) return <DeferredVersion agentId={agentId} version={version} />;
  const deleted = version.op === 'delete';
  const moved = version.op === 'move';
  const segments = wordDiff(previous?.content ?? '', version.content);
  // A move keeps the text (up to line endings and trailing spaces): its diff is shown only if it has one.
  const unchanged = moved && previous !== undefined && segments.every((s) => s.op === 'equal');
  // A text changed only in whitespace at line ends: its word diff would show nothing, so it is said in words.
  const whitespace = previous !== undefined && !deleted && !unchanged ? whitespaceChangeWords(previous.content, version.content) : null;
  const changes = metaChanges(version, previous);
  return (
    <li id={`v${version.seq}`} data-testid="version" data-seq={version.seq} data-op={version.op} data-record-id={version.record_id} className="group relative scroll-mt-20 pl-8">
      <span className={clsx('absolute left-[7px] top-3 h-3 w-3 rounded-full ring-4 ring-canvas', DOT[version.op])} aria-hidden />
      <article className="rounded-md border border-line bg-white group-target:border-accent group-target:ring-2 group-target:ring-accent/20">
        <header className="flex flex-wrap items-center gap-2 border-b border-line bg-zinc-50/70 px-3 py-1.5 text-[12px]">
          <Link href={routes.sequence(agentId, version.seq)} className="font-mono font-semibold text-accent hover:underline">
            #{version.seq}
          </Link>
          <OpBadge op={version.op} renamed={version.from_file != null && version.from_file === version.to_file} />
          <span className="text-muted" title={formatDateTime(version.synced_at)}>
            <RelativeTime iso={version.synced_at} />
          </span>
          <span className="text-faint">{formatDateTime(version.synced_at)}</span>
          {changes.map((c) => (
            <span key={c} className="rounded bg-zinc-100 px-1.5 font-mono text-[11px] text-muted">
              <SafeName name={c} max={120} />
            </span>
          ))}
          <span className="ml-auto flex items-center gap-3">
            {!deleted && !unchanged && whitespace === null && mode === 'diff' && <DiffStatsBadge {...diffStats(segments)} />}
            <Link href={routes.workspace(agentId, version.seq, version.origin_file ?? undefined)} className="text-accent hover:underline" data-testid="version-workspace-link">
              workspace at #{version.seq}
            </Link>
          </span>
        </header>
        <div className="space-y-2 px-4 py-3">
          {moved && <MoveStep agentId={agentId} version={version} />}
          {unchanged ? null : deleted ? (
            <div data-testid="tombstone">
              <p className="mb-2 text-[12px] text-delete">Deleted in this sync. Its last text was:</p>
              <pre className="whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-muted line-through decoration-delete/30">{version.content}</pre>
            </div>
          ) : mode === 'diff' && whitespace !== null ? (
            <p className="text-[12px] text-muted" data-testid="version-whitespace">{whitespace}</p>
          ) : mode === 'diff' ? (
            <WordDiff segments={segments} />
          ) : (
            <MemoryMarkdown text={version.content} />
          )}
        </div>
      </article>
    </li>
  );
}

/** Memoised: a lineage that loads another page redraws only the new versions. */
export const VersionCard = memo(VersionCardView);
