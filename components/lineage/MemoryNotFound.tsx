'use client';

import { useParams } from 'next/navigation';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { routes } from '@/lib/ui/routes';
import { NotFoundPanel } from '../ui/NotFoundPanel';
import { SafeName } from '../ui/SafeName';

/** A record id the agent never had, live or deleted. */
export function MemoryNotFound() {
  const { id, recordId } = useParams<{ id: string; recordId: string }>();
  const { agent } = useAgent(id);
  return (
    <NotFoundPanel
      title="No memory with this id"
      links={[
        { href: routes.agent(id, 'memories'), label: 'Memories', testId: 'not-found-memories' },
        { href: routes.agent(id, 'changes'), label: 'Changes', testId: 'not-found-changes' },
      ]}
    >
      {agent ? <SafeName name={agent.name} /> : 'This agent'} never had a memory <span className="break-all font-mono">{decodeURIComponent(recordId)}</span>, live or deleted.
    </NotFoundPanel>
  );
}
