import type { AgentName } from '@/lib/ui/api-types';
import { visibleName } from './SafeName';

/**
 * What each agent is called where the dashboard lists several of them by name (an agent filter,
 * the search page's appearances): its name, and when another agent has the same name — a fleet
 * cloned from one template, every agent "Atlas" — ` · ` and the first 8 characters of its id after
 * it, as the fleet table shows under each name, so they can be told apart. The names are as stored
 * (hidden characters are for the caller to show: `visibleName`, `SafeName`).
 */
export function agentLabels(agents: readonly Pick<AgentName, 'id' | 'name'>[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const a of agents) count.set(a.name, (count.get(a.name) ?? 0) + 1);
  return new Map(agents.map((a) => [a.id, (count.get(a.name) ?? 0) > 1 ? `${a.name} · ${a.id.slice(0, 8)}` : a.name]));
}

/** The `<option>`s of an agent filter, by name then id, after "All agents" (value ""). */
export function AgentOptions({ agents }: { agents: readonly Pick<AgentName, 'id' | 'name'>[] }) {
  const labels = agentLabels(agents);
  const sorted = [...agents].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return (
    <>
      <option value="">All agents</option>
      {sorted.map((a) => (
        <option key={a.id} value={a.id}>
          {visibleName(labels.get(a.id) ?? a.name)}
        </option>
      ))}
    </>
  );
}
