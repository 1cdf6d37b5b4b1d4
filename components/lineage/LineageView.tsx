'use client';

import { useLineage } from '@/lib/ui/hooks/use-records';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { plural } from '@/lib/ui/format';
import { lineageKey, recordTitle } from '@/lib/ui/record-text';
import { Segmented } from '../ui/Field';
import { Panel } from '../ui/Panel';
import { ErrorState, LoadingRows } from '../ui/States';
import { Badge } from '../ui/Badge';
import { IdentityCard } from './IdentityCard';
import { Provenance } from './Provenance';
import { VersionCard } from './VersionCard';
import { VersionCompare } from './VersionCompare';
import { VersionKeys } from './VersionKeys';

type Mode = 'diff' | 'full';
type Order = 'newest' | 'oldest';

/** A memory's identity, provenance and every version across sequences (`?view=diff|full`, `?order=`). */
export function LineageView({ agentId, recordId }: { agentId: string; recordId: string }) {
  const url = useUrlState();
  const mode: Mode = url.get('view') === 'full' ? 'full' : 'diff';
  const order: Order = url.get('order') === 'oldest' ? 'oldest' : 'newest';
  const query = useLineage(agentId, recordId);
  if (query.isPending) return <LoadingRows rows={8} label="Loading lineage" />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const lineage = query.data;
  const versions = lineage.versions.map((v, i) => ({ version: v, previous: lineage.versions[i - 1] }));
  if (order === 'newest') versions.reverse();
  return (
    <div data-testid="lineage-page" className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold tracking-tight" data-testid="lineage-title">
          {recordTitle({ ...lineage.record, key: lineageKey(lineage) })}
        </h2>
        {lineage.record.deleted_seq !== null && <Badge tone="delete">deleted at #{lineage.record.deleted_seq}</Badge>}
        <span className="text-[12px] text-muted" data-testid="version-count">
          {plural(lineage.versions.length, 'version')}
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
          <VersionCompare versions={lineage.versions} />
          <VersionKeys />
          <ol className="relative mt-2 space-y-3 before:absolute before:bottom-2 before:left-[12px] before:top-2 before:w-px before:bg-zinc-300" data-testid="version-list">
            {versions.map(({ version, previous }) => (
              <VersionCard key={`${version.seq}-${version.entry_kind}-${version.record_id}`} agentId={agentId} version={version} previous={previous} mode={mode} />
            ))}
          </ol>
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
