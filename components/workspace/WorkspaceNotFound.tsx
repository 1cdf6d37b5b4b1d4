'use client';

import { useParams, useSearchParams } from 'next/navigation';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { routes } from '@/lib/ui/routes';
import { NotFoundPanel } from '../ui/NotFoundPanel';
import { SafeName } from '../ui/SafeName';

/** The workspace at a sequence the agent has not synced: no files and no downloads, the range it has instead. */
export function WorkspaceNotFound() {
  const { id } = useParams<{ id: string }>();
  const seq = useSearchParams().get('seq') ?? '';
  const { agent } = useAgent(id);
  const latest = agent?.latest_sequence ?? null;
  const links = [{ href: routes.agent(id), label: 'Timeline', testId: 'not-found-timeline' }];
  if (latest !== null) links.unshift({ href: routes.workspace(id), label: `Workspace at the latest, #${latest}`, testId: 'not-found-latest' });
  return (
    <NotFoundPanel title={`Sequence #${seq} does not exist`} links={links} testId="workspace-not-found" fullLoad>
      {agent && (
        <>
          <SafeName name={agent.name} /> {latest === null ? 'has never synced.' : `has synced sequences #0 to #${latest}.`}
        </>
      )}
    </NotFoundPanel>
  );
}
