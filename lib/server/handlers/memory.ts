import { getAgentMemoryDto } from '@/lib/history/queries';
import { requireAgent } from '@/lib/ledger/agents';
import type { RequestContext } from '../context';
import { jsonResponse } from '../errors';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';

/** GET /v1/agents/{id}/memory — the agent's live records as a plain list of MemoryRecordDto. */
export async function memoryHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const { ledger } = ctx.service;
  const agent = requireAgent({ ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  return jsonResponse(getAgentMemoryDto({ db: ledger.db, agentId: agent.id, tenantId: ctx.tenantId }) ?? []);
}
