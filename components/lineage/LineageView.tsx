'use client';

import { useEffect } from 'react';
import type { Lineage, LineageVersion } from '@/lib/ui/api-types';
import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { useLineagePages } from '@/lib/ui/hooks/use-records';
import { FIRST_SCREEN_VERSIONS } from '@/lib/ui/page-window';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { plural } from '@/lib/ui/format';
import { lineageKey, recordTitle } from '@/lib/ui/record-text';
import { Segmented } from '../ui/Field';
import { Panel } from '../ui/Panel';
import { ErrorState, LoadingRows } from '../ui/States';
import { Badge } from '../ui/Badge';
import { PageButton } from '../ui/PageButtons';
import { IdentityCard } from './IdentityCard';
import { Provenance } from './Provenance';
import { VersionCard } from './VersionCard';
import { VersionCompare } from './VersionCompare';
import { VersionKeys } from './VersionKeys';

type Mode = 'diff' | 'full';
type Order = 'newest' | 'oldest';

/** A page's versions with the version each is diffed against (the one before it in time: in the page, or the page's `before`). */
function withPrevious(page: Lineage, order: Order): { version: LineageVersion; previous: LineageVersion | undefined }[] {
  const step = order === 'newest' ? 1 : -1;
  return page.versions.map((version, i) => ({ version, previous: page.versions[i + step] ?? page.before ?? undefined }));
}

/** The version seq named by the URL's anchor (`#v12`), if any. */
function anchorSeq(): number | null {
  const match = /^#v(\d+)$/.exec(typeof window === 'undefined' ? '' : window.location.hash);
  return match ? Number(match[1]) : null;
}

/**
 * A memory's identity, provenance and its versions across sequences (`?view=diff|full`,
 * `?order=`), a bounded window of keyset pages: "load older versions" brings the next page. A
 * permalink to a version not on the first page (`#v<seq>`) loads pages until it is drawn.
 */
export function LineageView({ agentId, recordId }: { agentId: string; recordId: string }) {
  const url = useUrlState();
  const mode: Mode = url.get('view') === 'full' ? 'full' : 'diff';
  const order: Order = url.get('order') === 'oldest' ? 'oldest' : 'newest';
  const query = useLineagePages(agentId, recordId, order);
  // The server and the hydration draw the first screen's versions in full and the rest as places.
  const hydrated = useHydrated();
  const pages = query.data?.pages ?? [];
  const versions = pages.flatMap((page) => withPrevious(page, order));
  const wanted = anchorSeq();
  const drawn = wanted !== null && versions.some(({ version }) => version.seq === wanted);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  useEffect(() => {
    if (wanted === null) return;
    if (drawn) document.getElementById(`v${wanted}`)?.scrollIntoView({ block: 'start' });
    else if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [wanted, drawn, hasNextPage, isFetchingNextPage, fetchNextPage]);
  if (query.isPending) return <LoadingRows rows={8} label="Loading lineage" />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const lineage = pages[0]!;
  const byTime = [...versions.map((v) => v.version)].sort((a, b) => a.seq - b.seq);
  const older = order === 'newest' ? 'older' : 'newer';
  return (
    <div data-testid="lineage-page" className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold tracking-tight" data-testid="lineage-title">
          {recordTitle({ ...lineage.record, key: lineageKey({ versions: byTime }) })}
        </h2>
        {lineage.record.deleted_seq !== null && <Badge tone="delete">deleted at #{lineage.record.deleted_seq}</Badge>}
        <span className="text-[12px] text-muted" data-testid="version-count">
          {plural(lineage.version_count, 'version')}
          {versions.length < lineage.version_count && <span data-testid="versions-shown"> · {versions.length} shown</span>}
        </span>
      </div>
      <div className="grid grid-cols-1 items-start gap-5 lg:grid-cols-[minmax(0,1fr)_320px]">
        <section>
          <div className="mb-3 flex flex-wrap items-center gap-3">
            <h3 className="text-[13px] font-semibold">History</h3>
            <span className="ml-auto" />
            <Segmented<Order>
              label="Order"
              value={order}
              onChange={(v) => url.set({ order: v === 'newest' ? null : v })}
              options={[{ value: 'newest', label: 'Newest first' }, { value: 'oldest', label: 'Oldest first' }]}
            />
            <Segmented<Mode>
              label="Show"
              testId="view-toggle"
              value={mode}
              onChange={(v) => url.set({ view: v === 'diff' ? null : v })}
              options={[{ value: 'diff', label: 'Diff' }, { value: 'full', label: 'Full text' }]}
            />
          </div>
          <VersionCompare versions={byTime} />
          <VersionKeys />
          <PageButton query={query} edge="start" back={`Show ${order === 'newest' ? 'newer' : 'older'} versions`} testId="load-back-versions" />
          <ol className="relative mt-2 space-y-3 before:absolute before:bottom-2 before:left-[12px] before:top-2 before:w-px before:bg-zinc-300" data-testid="version-list">
            {versions.map(({ version, previous }, i) => (
              <VersionCard key={`${version.seq}-${version.entry_kind}-${version.record_id}`} agentId={agentId} version={version} previous={previous} mode={mode}
                deferred={!hydrated && i >= FIRST_SCREEN_VERSIONS} />
            ))}
          </ol>
          <PageButton query={query} more={`Load ${older} versions`} testId="load-more-versions" />
        </section>
        <aside className="space-y-4 lg:sticky lg:top-16">
          <Panel title="Identity">
            <IdentityCard agentId={agentId} lineage={lineage} />
          </Panel>
          <Panel title="Provenance">
            <Provenance agentId={agentId} lineage={lineage} />
          </Panel>
        </aside>
      </div>
    </div>
  );
}
