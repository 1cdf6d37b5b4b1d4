import { z } from 'zod';
import { requireStorageAgent } from '../require-agent';
import { readJsonBody } from '../body';
import type { RequestContext } from '../context';
import { jsonResponse, ServiceError } from '../errors';
import { toAgentInfo } from '../agent-info';
import { layerCountsOf } from '../layer-counts';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';
import { echoInput } from '@/lib/core/echo';
import { flagParam } from '../params';

const RegisterBody = z.object({
  id: z.string().min(1),
  // What a name may be is the storage's rule (lib/ledger/agent-name.ts): one message, on every door.
  name: z.string(),
  source_runtime: z.string().nullish(),
});

/** Why an id held by another API key cannot be used, and what to do instead. */
export function agentIdTakenMessage(id: string): string {
  return `agent id ${echoInput(id)} is already registered by another API key on this server. Give this workspace a new id: `
    + '`lineage sync --agent-id <new uuid> …` (or delete its .alf-agent-id file and sync again)';
}

/**
 * POST /agents — 201 AgentInfo; 409 when the id is taken: by the caller (plain conflict) or by another
 * tenant (`code: agent_id_taken`, nothing else about that agent revealed) — also when another tenant
 * deleted it (`registerAgent` answers `'exists'`), so a deleted id cannot be told from a live one.
 */
export async function registerAgentHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const parsed = RegisterBody.safeParse(await readJsonBody(req));
  if (!parsed.success) {
    throw new ServiceError('bad_request', `invalid agent: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`);
  }
  const { id, name, source_runtime } = parsed.data;
  const row = await ctx.service.storage.registerAgent({
    id, name, sourceRuntime: source_runtime ?? null, tenantId: ctx.tenantId, now: ctx.service.clock(),
  });
  if (row === 'exists') {
    // The caller's own agent: a plain 409 (the client then reads it). Another key's: say so, with the way out.
    if (await ctx.service.storage.getAgent({ agentId: id, tenantId: ctx.tenantId })) throw new ServiceError('conflict', `agent ${echoInput(id)} already exists`);
    return jsonResponse({ error: agentIdTakenMessage(id), code: 'agent_id_taken' }, 409);
  }
  return jsonResponse(toAgentInfo(row), 201);
}

/** GET /agents/{id} — AgentInfo with `layer_counts`. */
export async function getAgentHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const row = await requireStorageAgent(ctx);
  return jsonResponse(toAgentInfo(row, await layerCountsOf(ctx.service.storage, row)));
}

/** GET /agents — the caller's agents only. */
export async function listAgentsHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const rows = await ctx.service.storage.listAgents({ tenantId: ctx.tenantId });
  return jsonResponse({ agents: rows.map((row) => toAgentInfo(row)) });
}

/**
 * DELETE /agents/{id} — removes the agent, its ledger, its blobs and pending uploads.
 * `?if_empty=true` (ours, past CONTRACT §1.2): only while the agent holds no entry, judged inside the
 * delete's transaction — else 409 `agent_not_empty`, nothing deleted. Our client's undo of the
 * registration a refused first snapshot left asks it so, so that another machine's first snapshot
 * stored between its look and its delete is never deleted with it.
 */
export async function deleteAgentHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const { storage } = ctx.service;
  const onlyIfEmpty = flagParam(ctx.url, 'if_empty');
  const agent = await requireStorageAgent(ctx);
  const result = await storage.deleteAgent({ agentId: agent.id, tenantId: ctx.tenantId, now: ctx.service.clock(), onlyIfEmpty });
  // By the row's id: the path may name the agent padded or in upper case, and the uploads record the row's id.
  await storage.uploads.removeAgent(agent.id);
  return jsonResponse(result);
}
