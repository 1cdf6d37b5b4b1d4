import { getAgentMemoryDto } from '@/lib/history/queries';
import { requireAgent } from '@/lib/ledger/agents';
import type { RequestContext } from '../context';
import { jsonResponse } from '../errors';

/** GET /v1/agents/{id}/memory — the agent's live records as a plain list of MemoryRecordDto. */
export async function memoryHandler(_req: Request, ctx: RequestContext): Promise<Response> {
  const { ledger } = ctx.service;
  const agent = requireAgent({ ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  return jsonResponse(getAgentMemoryDto({ db: ledger.db, agentId: agent.id, tenantId: ctx.tenantId }) ?? []);
}
