import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { AgentHeader } from '@/components/agent/AgentHeader';
import { queryKeys } from '@/lib/ui/query-keys';
import { requestScope, storage } from '../../api/_lib/context';
import { Prefetched } from '../../_lib/prefetch';
import { scopedAgent } from '../../_lib/scoped-agent';

export const dynamic = 'force-dynamic';

/** Every agent page: the agent's header above the view (its own stats prefetched, not the fleet's). */
export default async function AgentLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const tenantId = await requestScope();
  if (!(await scopedAgent(id))) notFound();
  const s = await storage();
  return (
    <Prefetched entries={[[queryKeys.agent(id), () => s.getAgentWithStats({ tenantId, now: new Date(), agentId: id })]]}>
      <AgentHeader agentId={id} />
      {children}
    </Prefetched>
  );
}
