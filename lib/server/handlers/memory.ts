import type { RequestContext } from '../context';
import { jsonResponse } from '../errors';
import { requireStorageAgent } from '../require-agent';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';

/** GET /v1/agents/{id}/memory — the agent's live records as a plain list of MemoryRecordDto. */
export async function memoryHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const agent = await requireStorageAgent(ctx);
  return jsonResponse((await ctx.service.storage.getAgentMemoryDto({ agentId: agent.id, tenantId: ctx.tenantId })) ?? []);
}
