'use client';

import { useAgentNames } from '@/lib/ui/hooks/use-agents';
import { useChanges } from '@/lib/ui/hooks/use-changes';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { changeCount, mergePages } from '@/lib/ui/changes';
import { formatDateTime } from '@/lib/ui/format';
import { Segmented, Select } from '../ui/Field';
import { PageButton } from '../ui/PageButtons';
import { AgentOptions } from '../ui/AgentOptions';
import { Panel } from '../ui/Panel';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { changeFilters, opParam, sinceParam, type ChangeOp, type SinceMode } from './change-params';
import { ChangesFeed } from './ChangesFeed';

type Op = ChangeOp | 'all';

const OP_OPTIONS: { value: Op; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'create', label: 'Created' },
  { value: 'update', label: 'Updated' },
  { value: 'move', label: 'Moved' },
  { value: 'delete', label: 'Deleted' },
];

const SINCE_OPTIONS: { value: SinceMode; label: string }[] = [
  { value: 'this-week', label: 'This week' },
  { value: '7d', label: '7 days' },
  { value: 'date', label: 'Since date' },
];

/**
 * The fleet feed's agent filter (`?agent=`): every agent, by name. It asks for the names alone, under its
 * own key: sharing the fleet table's query, it drew options the server had not (hydrated after the
 * table's data had come, the feed sits in its own Suspense boundary) — a hydration mismatch.
 */
export function AgentFilter({ value, onChange }: { value: string; onChange: (agent: string | null) => void }) {
  const agents = useAgentNames();
  return (
    <Select label="Agent" value={value} onChange={(e) => onChange(e.target.value || null)} data-testid="agent-filter">
      <AgentOptions agents={agents.data ?? []} />
    </Select>
  );
}

/**
 * Changed memories since a time, with the window, op and (on the fleet feed) agent filters in the
 * URL (`since`, `op`, `agent`), keyset-paged: "load more" brings the next page, and at most
 * MAX_DRAWN_ROWS changes are drawn ("show newer" brings back the pages the window let go).
 */
export function ChangesPanel({ agentId, title = 'Changes', pageSize }: { agentId?: string; title?: string; pageSize?: number }) {
  const url = useUrlState();
  const agentFilter = agentId ? '' : (url.get('agent') ?? '');
  const { mode, date } = sinceParam(url.get('since'));
  const op = opParam(url.get('op'));
  const query = useChanges(changeFilters(url.get, agentId), pageSize);
  const first = query.data?.pages[0];
  const groups = query.data ? mergePages(query.data.pages) : [];
  const count = changeCount({ groups });

  const setMode = (next: SinceMode) => {
    if (next === 'date') {
      const twoWeeksAgo = new Date(Date.now() - 14 * 86_400_000).toISOString().slice(0, 10);
      url.set({ since: date || twoWeeksAgo });
    } else url.set({ since: next === 'this-week' ? null : next });
  };

  return (
    <Panel
      testId="changes-panel"
      flush
      title={
        <span>
          {title}
          {first && (
            <span className="ml-2 font-normal text-faint" title={`since ${formatDateTime(first.since)}`} data-testid="changes-count">
              {count}
              {query.hasNextPage ? '+' : ''} since {formatDateTime(first.since)}
            </span>
          )}
        </span>
      }
      actions={
        <>
          <Segmented label="Time window" value={mode} options={SINCE_OPTIONS} onChange={setMode} testId="since-filter" />
          {mode === 'date' && (
            <input
              type="date"
              aria-label="Changes since date"
              data-testid="since-date"
              value={date}
              max={new Date().toISOString().slice(0, 10)}
              onChange={(e) => e.target.value && url.set({ since: e.target.value })}
              className="h-7 rounded-md border border-line px-2 font-mono text-[12px]"
            />
          )}
          {!agentId && <AgentFilter value={agentFilter} onChange={(agent) => url.set({ agent })} />}
          <Segmented label="Operation" value={op} options={OP_OPTIONS} onChange={(v) => url.set({ op: v === 'all' ? null : v })} testId="op-filter" />
        </>
      }
    >
      {query.isPending ? (
        <LoadingRows rows={5} label="Loading changes" />
      ) : query.error ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : count === 0 ? (
        <EmptyState title="No changes in this window">Try a wider window or another operation.</EmptyState>
      ) : (
        <div className={query.isPlaceholderData ? 'opacity-60 transition-opacity' : undefined}>
          <PageButton query={query} edge="start" back="Show newer changes" />
          <ChangesFeed groups={groups} showAgent={!agentId} />
          <PageButton query={query} more="Load more changes" />
        </div>
      )}
    </Panel>
  );
}
