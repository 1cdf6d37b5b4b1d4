'use client';

import { useAgents } from '@/lib/ui/hooks/use-agents';

function Stat({ label, value, testId }: { label: string; value: number | string; testId: string }) {
  return (
    <div className="rounded-lg border border-line bg-white px-4 py-3" data-testid={testId}>
      <div className="text-[11px] font-medium uppercase tracking-wide text-faint">{label}</div>
      <div className="mt-1 font-mono text-xl font-semibold tabular-nums text-ink">{value}</div>
    </div>
  );
}

/** Fleet totals above the agent table. */
export function FleetStats() {
  const { data } = useAgents();
  const agents = data ?? [];
  const sum = (pick: (a: (typeof agents)[number]) => number) => agents.reduce((n, a) => n + pick(a), 0);
  const runtimes = new Set(agents.map((a) => a.runtime ?? 'unknown')).size;
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
      <Stat label="Agents" value={data ? `${agents.length}` : '—'} testId="stat-agents" />
      <Stat label="Runtimes" value={data ? runtimes : '—'} testId="stat-runtimes" />
      <Stat label="Live memories" value={data ? sum((a) => a.live_records) : '—'} testId="stat-live" />
      <Stat label="Syncs in 7 days" value={data ? sum((a) => a.syncs_7d) : '—'} testId="stat-syncs" />
    </div>
  );
}
