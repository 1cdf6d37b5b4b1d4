'use client';

import { useAgent } from '@/lib/ui/hooks/use-agents';
import { useRecords } from '@/lib/ui/hooks/use-records';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { PageButton } from '../ui/PageButtons';
import { Panel } from '../ui/Panel';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { RecordFilterBar } from './RecordFilterBar';
import { RecordList } from './RecordList';
import { SequenceInput } from './SequenceInput';
import { RECORD_FILTER_KEYS, recordsParams } from './tab-params';
import { intParamProblem } from '@/lib/ui/url-params';

/**
 * The records live at `?at=` (latest by default), filtered by the URL's facet parameters and text
 * (`q`), sorted (`sort`), keyset-paged: "load more" brings the next page, at most MAX_DRAWN_ROWS drawn.
 */
export function MemoriesTab({ agentId }: { agentId: string }) {
  const url = useUrlState();
  const { agent } = useAgent(agentId);
  const { at, filters } = recordsParams(url.get);
  const atProblem = intParamProblem('at', url.get('at'));
  const query = useRecords(agentId, at, filters);
  const first = query.data?.pages[0];
  const records = query.data?.pages.flatMap((p) => p.items) ?? [];
  const latest = agent?.latest_sequence ?? first?.at ?? 0;
  const active = Object.keys(filters).some((k) => k !== 'sort');

  return (
    <div className="space-y-3" data-testid="memories-tab">
      <Panel
        flush
        title={
          <span>
            Memories
            {first && !atProblem && (
              <span className="ml-2 font-normal text-faint" data-testid="records-total">
                {first.total ?? records.length} {active ? 'match' : 'live'} at #{first.at}
              </span>
            )}
          </span>
        }
        actions={<SequenceInput value={at ?? latest} latest={latest} param="at" onChange={(seq) => url.set({ at: seq })} testId="memories-at" />}
      >
        <div className="flex items-center gap-3 border-b border-line bg-zinc-50/60 px-4 py-2">
          <RecordFilterBar facets={first?.facets ?? {}} filters={filters} onChange={(key, value) => url.set({ [key]: value })} />
          {active && (
            <button
              type="button"
              className="ml-auto text-[12px] text-accent hover:underline"
              onClick={() => url.set(Object.fromEntries(RECORD_FILTER_KEYS.map((k) => [k, null])))}
            >
              Clear filters
            </button>
          )}
        </div>
        {atProblem ? (
          <ErrorState error={new Error(atProblem)} />
        ) : query.isPending ? (
          <LoadingRows rows={6} label="Loading memories" />
        ) : query.error ? (
          <ErrorState error={query.error} retry={() => void query.refetch()} />
        ) : records.length === 0 ? (
          <EmptyState title={active ? 'No memories match these filters' : 'No memories live at this sequence'} />
        ) : (
          <div className={query.isPlaceholderData ? 'opacity-60' : undefined}>
            <PageButton query={query} edge="start" back="Show earlier memories" />
            <RecordList agentId={agentId} records={records} />
            <PageButton query={query} more="Load more memories" />
          </div>
        )}
      </Panel>
    </div>
  );
}
