import Link from '@/components/ui/Link';
import type { AgentFactStatus } from '@/lib/history/queries';
import { routes } from '@/lib/ui/routes';
import { statusWords } from './status-words';

/** Across agents: what became of the fact in each other agent it appeared in. */
export function OtherAgents({ statuses, name }: { statuses: readonly AgentFactStatus[]; name: (id: string) => string }) {
  if (statuses.length === 0) return null;
  return (
    <ul className="space-y-0.5 px-4 pb-3 text-[12.5px] text-muted" data-testid="other-agent-statuses">
      {statuses.map((s) => (
        <li key={s.agent_id}>
          Also in{' '}
          <Link href={routes.agent(s.agent_id)} className="font-medium text-ink hover:text-accent hover:underline">
            {name(s.agent_id)}
          </Link>
          : {statusWords(s)}
        </li>
      ))}
    </ul>
  );
}
