import { memo } from 'react';
import Link from '@/components/ui/Link';
import clsx from 'clsx';
import type { ChangeGroup, ChangeItem } from '@/lib/ui/api-types';
import { formatDay, formatTime } from '@/lib/ui/format';
import { useAgentNames } from '@/lib/ui/hooks/use-agents';
import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { FIRST_SCREEN_ROWS } from '@/lib/ui/page-window';
import { routes } from '@/lib/ui/routes';
import { bodyPreview, recordTitle } from '@/lib/ui/record-text';
import { OpBadge } from '../ui/OpBadge';
import { PathText } from '../ui/PathText';
import { agentLabels } from '../ui/AgentOptions';
import { SafeName } from '../ui/SafeName';
import { WordDiff } from '../memory/WordDiff';

function ChangeRow({ agentId, change }: { agentId: string; change: ChangeItem }) {
  const deleted = change.op === 'delete';
  return (
    <li data-testid="change-row" data-op={change.op} data-seq={change.seq} data-record-id={change.record_id} className="grid grid-cols-[auto_minmax(0,1fr)] items-start gap-x-3 gap-y-1 px-4 py-2 hover:bg-zinc-50 sm:grid-cols-[76px_minmax(0,1fr)_auto]">
      <div className="pt-px">
        <OpBadge op={change.op} renamed={change.from_file != null && change.from_file === change.origin_file} />
      </div>
      <div className="min-w-0">
        <div className="flex min-w-0 flex-wrap items-baseline gap-x-2">
          <Link
            href={routes.lineage(agentId, change.record_id, change.seq)}
            className={clsx('min-w-0 truncate font-medium text-ink hover:text-accent hover:underline', deleted && 'line-through decoration-delete/60')}
          >
            {recordTitle({ heading: change.heading, key: change.key, origin_file: change.origin_file, content: change.snippet })}
          </Link>
          {change.op === 'move' && change.from_file != null && change.from_file === change.origin_file ? (
            <span className="min-w-0 text-[11px] text-faint" data-testid="change-move" data-renamed="">
              renamed in <PathText path={change.origin_file} />
            </span>
          ) : change.op === 'move' ? (
            <span className="min-w-0 text-[11px] text-faint" data-testid="change-move">
              moved <PathText path={change.from_file ?? '—'} /> → <PathText path={change.origin_file ?? '—'} />
            </span>
          ) : (
            change.origin_file && <PathText path={change.origin_file} className="min-w-0 text-[11px] text-faint" />
          )}
        </div>
        {change.whitespace_change ? (
          // Its word diff would show nothing a reader sees (a line break, spaces at a line's end): said in words.
          <p className="mt-0.5 text-[12px] leading-5 text-muted" data-testid="change-whitespace">{change.whitespace_change}</p>
        ) : change.diff ? (
          <WordDiff segments={change.diff} className="mt-0.5 text-[12px] leading-5" testId="change-diff" />
        ) : (
          <p className="mt-0.5 line-clamp-2 font-mono text-[12px] leading-5 text-muted">{bodyPreview(change.snippet, change.heading, change.key)}</p>
        )}
      </div>
      <div className="col-start-2 flex flex-wrap items-baseline gap-x-2 gap-y-0.5 whitespace-nowrap text-[11px] text-faint sm:col-start-auto sm:flex-col sm:items-end">
        <Link href={routes.sequence(agentId, change.seq)} className="font-mono text-accent hover:underline">
          #{change.seq}
        </Link>
        <time dateTime={change.synced_at} title={change.synced_at} data-testid={deleted ? 'tombstone-time' : undefined}>
          {deleted ? 'deleted ' : ''}
          {formatTime(change.synced_at)} UTC
        </time>
      </div>
    </li>
  );
}

/**
 * A change below the first screen as the server renders it: its record's title, a plain link (the
 * markup next/link draws), in a row about a full one's height. The full row (badge, diff, sequence)
 * replaces it right after hydration; until then it is no `change-row`.
 */
function DeferredChangeRow({ agentId, change }: { agentId: string; change: ChangeItem }) {
  return (
    <li data-testid="change-row-deferred" data-record-id={change.record_id} className="px-4 py-2 sm:pl-[104px]">
      <a href={routes.lineage(agentId, change.record_id, change.seq)} className="font-medium text-ink">
        {recordTitle({ heading: change.heading, key: change.key, origin_file: change.origin_file, content: change.snippet })}
      </a>
      <div className="h-10" />
    </li>
  );
}

/** Memoised: a feed that loads another page redraws only the new rows. */
const Row = memo(ChangeRow);

/** Changes grouped by day (newest first), then by agent when the feed spans the fleet. */
/**
 * A fleet feed group's agent: its name, with the id's first 8 characters when another agent of the
 * fleet has the same name (`agentLabels`), so twelve "Atlas" groups are told apart; the name alone
 * until the fleet's names are loaded.
 */
function GroupAgentName({ group }: { group: ChangeGroup }) {
  const agents = useAgentNames();
  return <SafeName name={agentLabels(agents.data ?? []).get(group.agent_id) ?? group.agent_name} />;
}

export function ChangesFeed({ groups, showAgent }: { groups: ChangeGroup[]; showAgent: boolean }) {
  const hydrated = useHydrated();
  // The rows' place in the feed as drawn (day, then group order): past FIRST_SCREEN_ROWS the server draws places.
  let drawn = 0;
  const days = new Map<string, ChangeGroup[]>();
  for (const group of groups) days.set(group.day, [...(days.get(group.day) ?? []), group]);
  const ordered = [...days.entries()].sort(([a], [b]) => (a < b ? 1 : -1));
  return (
    <div data-testid="changes-feed">
      {ordered.map(([day, dayGroups]) => (
        <section key={day} data-testid="changes-day" data-day={day}>
          <h3 className="sticky top-0 z-10 sm:top-12 border-y border-line bg-zinc-50 px-4 py-1.5 text-[12px] font-semibold text-muted first:border-t-0">
            {formatDay(day)}
            <span className="ml-2 font-normal text-faint">{dayGroups.reduce((n, g) => n + g.changes.length, 0)} changes</span>
          </h3>
          {dayGroups.map((group) => (
            <div key={group.agent_id}>
              {showAgent && (
                <div className="px-4 pt-2 text-[12px] font-semibold wrap-anywhere">
                  <Link href={routes.agent(group.agent_id)} className="text-ink hover:text-accent hover:underline">
                    <GroupAgentName group={group} />
                  </Link>
                </div>
              )}
              <ul className="divide-y divide-zinc-100">
                {group.changes.map((change) => (!hydrated && drawn++ >= FIRST_SCREEN_ROWS
                  ? <DeferredChangeRow key={`${change.seq}-${change.record_id}`} agentId={group.agent_id} change={change} />
                  : <Row key={`${change.seq}-${change.record_id}`} agentId={group.agent_id} change={change} />))}
              </ul>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}
