/**
 * One agent as its pages' header shows it (GET /api/agents/{id}, and the agent layout's prefetch of
 * the same query): its dashboard stats, and `index_notice` — why the history shown stops short of
 * its ledger, when an entry stored could not be folded into the history index (null otherwise).
 * Both read in the request's tenant scope: another tenant's agent is null, notice and all.
 */
import type { TenantScope } from '@/lib/history/queries/common';
import type { LineageStorage } from '@/lib/storage/types';
import type { AgentSummary } from '@/lib/ui/api-types';

export async function agentSummary(s: LineageStorage, p: { agentId: string; tenantId: TenantScope; now: Date }): Promise<AgentSummary | null> {
  const agent = await s.getAgentWithStats(p);
  if (!agent) return null;
  return { ...agent, index_notice: await s.indexNotice({ agentId: p.agentId, tenantId: p.tenantId }) };
}
