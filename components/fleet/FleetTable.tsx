'use client';

import { useEffect, useRef, useState } from 'react';
import Link from '@/components/ui/Link';
import { useAgents } from '@/lib/ui/hooks/use-agents';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { plural } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import {
  DEFAULT_FLEET_SORT,
  FLEET_QUERY_MAX,
  FLEET_SORT_KEYS,
  FIRST_DIR,
  fleetCount,
  fleetQuery,
  fleetRows,
  fleetSortParam,
  fleetSortProblem,
  nextFleetSort,
  parseFleetSort,
  type FleetSort,
  type FleetSortKey,
  type SortDir,
} from '@/lib/ui/fleet';
import { RuntimeBadge } from '../ui/RuntimeBadge';
import { RelativeTime } from '../ui/RelativeTime';
import { ShortId } from '../ui/ShortId';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { ActivitySparkline } from './ActivitySparkline';
import { SafeName, visibleName } from '@/components/ui/SafeName';

const TH = 'px-4 py-2 sm:max-lg:px-2 text-left text-[11px] font-medium uppercase tracking-wide text-faint';

const LABELS: Record<FleetSortKey, string> = {
  name: 'Agent',
  runtime: 'Runtime',
  sequence: 'Sequence',
  last_sync: 'Last sync',
  live: 'Live memories',
  changed: 'Changed (7 days)',
};

/** The narrow screen's sort menu (the header row is hidden there): each column both ways, its first direction first. */
const DIR_WORDS: Record<FleetSortKey, Record<SortDir, string>> = {
  name: { asc: 'A to Z', desc: 'Z to A' },
  runtime: { asc: 'A to Z', desc: 'Z to A' },
  sequence: { asc: 'lowest first', desc: 'highest first' },
  last_sync: { asc: 'oldest first', desc: 'latest first' },
  live: { asc: 'fewest first', desc: 'most first' },
  changed: { asc: 'fewest first', desc: 'most first' },
};

const sortValue = (sort: FleetSort) => fleetSortParam(sort) ?? DEFAULT_FLEET_SORT.key;

function SortArrow({ dir }: { dir: SortDir | null }) {
  return (
    <svg aria-hidden width="8" height="10" viewBox="0 0 8 10" className={dir ? 'text-ink' : 'text-faint opacity-50'} data-testid="sort-arrow">
      {dir !== 'desc' && <path d="M4 0 8 4H0z" fill="currentColor" />}
      {dir !== 'asc' && <path d="M4 10 0 6h8z" fill="currentColor" />}
    </svg>
  );
}

/** A column header that sorts: a button (Enter or Space), `aria-sort` on the sorted column only. */
function SortHeader({ sortKey, sort, onSort, right, testId, title }: {
  sortKey: FleetSortKey;
  sort: FleetSort;
  onSort: (key: FleetSortKey) => void;
  right?: boolean;
  testId?: string;
  title?: string;
}) {
  const active = sort.key === sortKey;
  return (
    <th
      className={`${TH} ${right ? 'text-right' : ''}`}
      aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
      data-testid={testId}
      title={title}
    >
      <button
        type="button"
        onClick={() => onSort(sortKey)}
        data-testid={`sort-${sortKey}`}
        className="inline-flex items-center gap-1.5 rounded-sm uppercase tracking-wide hover:text-ink max-sm:invisible"
      >
        {LABELS[sortKey]}
        <SortArrow dir={active ? sort.dir : null} />
      </button>
    </th>
  );
}

/**
 * The filter text: the box shows what is typed at once and the rows follow it; the address keeps it (`?q=`), the first
 * keystroke of an edit as a history entry, the rest replacing it, so Back returns to the rows before the edit. Written
 * through the History API (`via: 'history'`): a keystroke asks the server for nothing (e2e/filter-requests.spec.ts).
 * When the address changes otherwise (Back, Forward, a link), the box follows it.
 */
function useFilterText(url: ReturnType<typeof useUrlState>) {
  const fromUrl = url.get('q') ?? '';
  const [text, setText] = useState(fromUrl);
  const written = useRef<string[]>([]);
  const editing = useRef(false);
  useEffect(() => {
    const at = written.current.indexOf(fromUrl);
    if (at >= 0) {
      written.current = written.current.slice(at + 1);
      return;
    }
    written.current = [];
    editing.current = false;
    setText(fromUrl);
  }, [fromUrl]);
  const change = (value: string) => {
    setText(value);
    const q = fleetQuery(value);
    if (q === fleetQuery(written.current.at(-1) ?? fromUrl)) return;
    written.current.push(q);
    // The filter is applied here, to the list already fetched: the address changes without a request for the page.
    url.set({ q }, { replace: editing.current, via: 'history' });
    editing.current = true;
  };
  return { text, change, endEdit: () => void (editing.current = false) };
}

export function FleetTable() {
  const { data, error, isPending, refetch } = useAgents();
  const url = useUrlState();
  const sortParam = url.get('sort');
  const sort = parseFleetSort(sortParam) ?? DEFAULT_FLEET_SORT;
  const problem = fleetSortProblem(sortParam);
  const filter = useFilterText(url);

  if (isPending) return <LoadingRows rows={4} label="Loading agents" />;
  if (error) return <ErrorState error={error} retry={() => void refetch()} />;
  if (data.length === 0) {
    return (
      <EmptyState title="No agents yet">
        Sync one with <code className="font-mono">lineage sync -r openclaw -w ~/agent</code> and it shows up here.
      </EmptyState>
    );
  }

  const onSort = (key: FleetSortKey) => url.set({ sort: fleetSortParam(nextFleetSort(sort, key)) });
  const rows = fleetRows(data, sort, filter.text);
  const query = fleetQuery(filter.text);

  return (
    <div data-testid="fleet-agents">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-line px-4 py-2">
        <label className="flex min-w-0 basis-full items-center gap-1.5 text-[12px] text-muted sm:basis-auto">
          <span>Filter</span>
          <input
            type="search"
            data-testid="fleet-filter"
            value={filter.text}
            maxLength={FLEET_QUERY_MAX}
            onChange={(e) => filter.change(e.currentTarget.value)}
            onBlur={filter.endEdit}
            placeholder="name, id or runtime"
            autoComplete="off"
            spellCheck={false}
            className="h-7 w-full min-w-0 rounded-md border border-line bg-white px-2 text-[12px] text-ink shadow-xs sm:w-56"
          />
        </label>
        <label className="inline-flex min-w-0 items-center gap-1.5 text-[12px] text-muted sm:hidden">
          <span>Sort</span>
          <select
            data-testid="fleet-sort-select"
            value={sortValue(sort)}
            onChange={(e) => url.set({ sort: fleetSortParam(parseFleetSort(e.currentTarget.value) ?? DEFAULT_FLEET_SORT) })}
            className="h-7 min-w-0 max-w-56 rounded-md border border-line bg-white px-2 text-[12px] text-ink shadow-xs"
          >
            {FLEET_SORT_KEYS.flatMap((key) => {
              const first = FIRST_DIR[key];
              return [first, first === 'asc' ? 'desc' : 'asc'].map((dir) => {
                const value = sortValue({ key, dir: dir as SortDir });
                return (
                  <option key={value} value={value}>
                    {LABELS[key]}, {DIR_WORDS[key][dir as SortDir]}
                  </option>
                );
              });
            })}
          </select>
        </label>
        <p role="status" data-testid="fleet-count" className="text-[12px] text-muted tabular-nums">
          {fleetCount(rows.length, data.length)}
        </p>
      </div>
      {problem && (
        <p role="alert" data-testid="fleet-sort-problem" className="border-b border-line bg-amber-50 px-4 py-2 text-[12px] text-amber-900">
          {problem}
        </p>
      )}
      {rows.length === 0 ? (
        <EmptyState title={`No agent matches “${visibleName(query)}”`} testId="fleet-no-match">
          The filter looks in names, the start of ids and runtimes.{' '}
          <button type="button" data-testid="fleet-filter-clear" onClick={() => filter.change('')} className="font-medium text-accent hover:underline">
            Clear the filter
          </button>
        </EmptyState>
      ) : (
        <table className="card-table w-full border-collapse text-[13px]" data-testid="fleet-table">
          <thead className="border-b border-line bg-zinc-50/60">
            <tr>
              <SortHeader sortKey="name" sort={sort} onSort={onSort} />
              <SortHeader sortKey="runtime" sort={sort} onSort={onSort} />
              <SortHeader sortKey="sequence" sort={sort} onSort={onSort} right />
              <SortHeader sortKey="last_sync" sort={sort} onSort={onSort} />
              <SortHeader sortKey="live" sort={sort} onSort={onSort} right />
              <SortHeader
                sortKey="changed"
                sort={sort}
                onSort={onSort}
                right
                testId="changed-7d-header"
                title="Distinct memories changed in the last 7 days (rolling), and the syncs that changed them"
              />
              {/* Between a phone's cards and a wide table (640–1023 px, a laptop at 200 % zoom) there is no room for it. */}
              <th className={`${TH} sm:max-lg:hidden`}>Last 28 days</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((agent) => (
              <tr key={agent.id} data-testid="fleet-row" data-agent-id={agent.id} className="border-b border-line last:border-0 hover:bg-zinc-50">
                <td className="px-4 py-2.5 sm:max-lg:px-2 card-title wrap-anywhere">
                  <Link href={routes.agent(agent.id)} className="font-semibold text-ink hover:text-accent hover:underline" data-testid="agent-link">
                    <SafeName name={agent.name} />
                  </Link>
                  <div>
                    <ShortId id={agent.id} />
                  </div>
                </td>
                <td className="px-4 py-2.5 sm:max-lg:px-2" data-label="Runtime">
                  <RuntimeBadge runtime={agent.runtime} />
                </td>
                <td className="px-4 py-2.5 sm:max-lg:px-2 text-right font-mono tabular-nums" data-label="Sequence" data-testid="fleet-sequence">
                  {agent.latest_sequence === null ? '—' : (
                    <Link href={routes.sequence(agent.id, agent.latest_sequence)} className="text-accent hover:underline">
                      #{agent.latest_sequence}
                    </Link>
                  )}
                  {agent.index_behind && (
                    // Its history index lacks entries its ledger holds: the agent's page says which, why and what to run.
                    <div>
                      <Link href={routes.agent(agent.id)} data-testid="fleet-index-behind"
                        title="Entries of this agent's ledger are not in its history index: its page says why and what to run"
                        className="text-[11px] font-sans text-amber-800 hover:underline">
                        history behind
                      </Link>
                    </div>
                  )}
                </td>
                <td className="px-4 py-2.5 sm:max-lg:px-2 text-muted" data-label="Last sync">{agent.last_sync_at ? <RelativeTime iso={agent.last_sync_at} /> : 'never'}</td>
                <td className="px-4 py-2.5 sm:max-lg:px-2 text-right font-mono tabular-nums" data-label="Live memories" data-testid="fleet-live">{agent.live_records}</td>
                <td className="px-4 py-2.5 sm:max-lg:px-2 text-right font-mono tabular-nums" data-testid="changed-7d" data-label="Changed (7 days)">
                  <span data-testid="changed-7d-count">{agent.changed_records_7d}</span>
                  <span className="ml-1 text-faint">in {plural(agent.syncs_7d, 'sync')}</span>
                </td>
                <td className="px-4 py-1.5 sm:max-lg:hidden" data-label="Last 28 days">
                  <ActivitySparkline activity={agent.activity} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
