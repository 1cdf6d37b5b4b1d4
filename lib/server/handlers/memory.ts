import { liveRecordRows } from '@/lib/history/current-state';
import { requireAgent } from '@/lib/ledger/agents';
import type { RequestContext } from '../context';
import { jsonResponse } from '../errors';
import { toMemoryDto } from '../memory-dto';

/** GET /v1/agents/{id}/memory — the agent's live records as a plain list of MemoryRecordDto. */
export async function memoryHandler(_req: Request, ctx: RequestContext): Promise<Response> {
  const { ledger } = ctx.service;
  const agent = requireAgent({ ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  return jsonResponse(liveRecordRows(ledger.db.db, agent.id).map(toMemoryDto));
}
