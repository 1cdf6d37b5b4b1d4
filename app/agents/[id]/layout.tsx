import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { AgentHeader } from '@/components/agent/AgentHeader';
import { IndexNoticeBanner } from '@/components/agent/IndexNoticeBanner';
import { queryKeys } from '@/lib/ui/query-keys';
import { agentSummary } from '../../api/_lib/agent-summary';
import { requestScope, storage } from '../../api/_lib/context';
import { Prefetched } from '../../_lib/prefetch';
import { scopedAgent } from '../../_lib/scoped-agent';

export const dynamic = 'force-dynamic';

/** Every agent page: the agent's header above the view (its own stats prefetched, not the fleet's), and the index notice when its history stops short. */
export default async function AgentLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const tenantId = await requestScope();
  if (!(await scopedAgent(id))) notFound();
  const s = await storage();
  return (
    <Prefetched entries={[[queryKeys.agent(id), () => agentSummary(s, { tenantId, now: new Date(), agentId: id })]]}>
      <AgentHeader agentId={id} />
      <IndexNoticeBanner agentId={id} />
      {children}
    </Prefetched>
  );
}
