'use client';

import { useChanges } from '@/lib/ui/hooks/use-changes';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { changeCount, truncationNotice } from '@/lib/ui/changes';
import { formatDateTime } from '@/lib/ui/format';
import { Segmented } from '../ui/Field';
import { Panel } from '../ui/Panel';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { ChangesFeed } from './ChangesFeed';

type Op = 'all' | 'create' | 'update' | 'delete' | 'move';
type Since = 'this-week' | '7d' | 'date';

const OP_OPTIONS: { value: Op; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'create', label: 'Created' },
  { value: 'update', label: 'Updated' },
  { value: 'move', label: 'Moved' },
  { value: 'delete', label: 'Deleted' },
];

const SINCE_OPTIONS: { value: Since; label: string }[] = [
  { value: 'this-week', label: 'This week' },
  { value: '7d', label: '7 days' },
  { value: 'date', label: 'Since date' },
];

function parseSince(raw: string | null): { mode: Since; date: string } {
  if (raw === '7d') return { mode: '7d', date: '' };
  if (raw && /^\d{4}-\d{2}-\d{2}/.test(raw)) return { mode: 'date', date: raw.slice(0, 10) };
  return { mode: 'this-week', date: '' };
}

/** Changed memories since a time, with the window and op filter in the URL (`since`, `op`). */
export function ChangesPanel({ agentId, title = 'Changes' }: { agentId?: string; title?: string }) {
  const url = useUrlState();
  const { mode, date } = parseSince(url.get('since'));
  const op = (['create', 'update', 'delete', 'move'] as const).find((o) => o === url.get('op')) ?? 'all';
  const since = mode === 'date' ? `${date}T00:00:00Z` : mode;
  const query = useChanges({ since, agent: agentId, op: op === 'all' ? undefined : op });
  const count = query.data ? changeCount(query.data) : 0;
  const notice = query.data ? truncationNotice(query.data, agentId ? 'agent' : 'fleet') : null;

  const setMode = (next: Since) => {
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
          {query.data && (
            <span className="ml-2 font-normal text-faint" title={`since ${formatDateTime(query.data.since)}`} data-testid="changes-count">
              {count}
              {query.data.truncated ? '+' : ''} since {formatDateTime(query.data.since)}
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
          {notice && (
            <p role="status" data-testid="changes-truncated" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-[12px] text-amber-900">
              {notice}
            </p>
          )}
          <ChangesFeed groups={query.data.groups} showAgent={!agentId} />
        </div>
      )}
    </Panel>
  );
}
