'use client';

import Link from '@/components/ui/Link';
import { useAgents } from '@/lib/ui/hooks/use-agents';
import { plural } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { RuntimeBadge } from '../ui/RuntimeBadge';
import { RelativeTime } from '../ui/RelativeTime';
import { ShortId } from '../ui/ShortId';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { ActivitySparkline } from './ActivitySparkline';
import { SafeName } from '@/components/ui/SafeName';

const TH = 'px-4 py-2 text-left text-[11px] font-medium uppercase tracking-wide text-faint';

export function FleetTable() {
  const { data, error, isPending, refetch } = useAgents();
  if (isPending) return <LoadingRows rows={4} label="Loading agents" />;
  if (error) return <ErrorState error={error} retry={() => void refetch()} />;
  if (data.length === 0) {
    return (
      <EmptyState title="No agents yet">
        Sync one with <code className="font-mono">lineage sync -r openclaw -w ~/agent</code> and it shows up here.
      </EmptyState>
    );
  }
  return (
    <table className="card-table w-full border-collapse text-[13px]" data-testid="fleet-table">
      <thead className="border-b border-line bg-zinc-50/60">
        <tr>
          <th className={TH}>Agent</th>
          <th className={TH}>Runtime</th>
          <th className={`${TH} text-right`}>Sequence</th>
          <th className={TH}>Last sync</th>
          <th className={`${TH} text-right`}>Live memories</th>
          <th className={`${TH} text-right`} data-testid="changed-7d-header" title="Distinct memories changed in the last 7 days (rolling), and the syncs that changed them">
            Changed (7 days)
          </th>
          <th className={TH}>Last 28 days</th>
        </tr>
      </thead>
      <tbody>
        {data.map((agent) => (
          <tr key={agent.id} data-testid="fleet-row" data-agent-id={agent.id} className="border-b border-line last:border-0 hover:bg-zinc-50">
            <td className="px-4 py-2.5 card-title wrap-anywhere">
              <Link href={routes.agent(agent.id)} className="font-semibold text-ink hover:text-accent hover:underline" data-testid="agent-link">
                <SafeName name={agent.name} />
              </Link>
              <div>
                <ShortId id={agent.id} />
              </div>
            </td>
            <td className="px-4 py-2.5" data-label="Runtime">
              <RuntimeBadge runtime={agent.runtime} />
            </td>
            <td className="px-4 py-2.5 text-right font-mono tabular-nums" data-label="Sequence">
              {agent.latest_sequence === null ? '—' : (
                <Link href={routes.sequence(agent.id, agent.latest_sequence)} className="text-accent hover:underline">
                  #{agent.latest_sequence}
                </Link>
              )}
            </td>
            <td className="px-4 py-2.5 text-muted" data-label="Last sync">{agent.last_sync_at ? <RelativeTime iso={agent.last_sync_at} /> : 'never'}</td>
            <td className="px-4 py-2.5 text-right font-mono tabular-nums" data-label="Live memories">{agent.live_records}</td>
            <td className="px-4 py-2.5 text-right font-mono tabular-nums" data-testid="changed-7d" data-label="Changed (7 days)">
              <span data-testid="changed-7d-count">{agent.changed_records_7d}</span>
              <span className="ml-1 text-faint">in {plural(agent.syncs_7d, 'sync')}</span>
            </td>
            <td className="px-4 py-1.5" data-label="Last 28 days">
              <ActivitySparkline activity={agent.activity} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
