import type { AgentRow } from '@/db/schema';
import { LedgerError } from '@/lib/ledger/errors';
import type { RequestContext } from './context';
import { echoInput } from '@/lib/core/echo';

/** The agent the path names, within the caller's tenant, or `agent_not_found` (404) — as lib/ledger's `requireAgent`. */
export async function requireStorageAgent(ctx: RequestContext, agentId: string = ctx.params.id!): Promise<AgentRow> {
  const row = await ctx.service.storage.getAgent({ agentId, tenantId: ctx.tenantId });
  if (!row) throw new LedgerError('agent_not_found', `agent ${echoInput(agentId)} not found`);
  return row;
}
