'use client';

import { useParams } from 'next/navigation';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { routes } from '@/lib/ui/routes';
import { NotFoundPanel } from '../ui/NotFoundPanel';
import { SafeName } from '../ui/SafeName';

/** A sequence the agent has not synced (or not a sequence number): the range it has, and its latest. */
export function SequenceNotFound() {
  const { id, seq } = useParams<{ id: string; seq: string }>();
  const { agent } = useAgent(id);
  const latest = agent?.latest_sequence ?? null;
  const links = [{ href: routes.agent(id), label: 'Timeline', testId: 'not-found-timeline' }];
  if (latest !== null) links.unshift({ href: routes.sequence(id, latest), label: `Latest sequence #${latest}`, testId: 'not-found-latest' });
  return (
    <NotFoundPanel title={`Sequence #${decodeURIComponent(seq)} does not exist`} links={links}>
      {agent && (
        <>
          <SafeName name={agent.name} /> {latest === null ? 'has never synced.' : `has synced sequences #0 to #${latest}.`}
        </>
      )}
    </NotFoundPanel>
  );
}
