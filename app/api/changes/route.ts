import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireAgent, storage } from '../_lib/context';
import { changesQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => {
  const { since, agent, op, limit, cursor } = parseQuery(request, changesQuery);
  const tenantId = await requestScope(request);
  if (agent !== undefined) await requireAgent(agent, tenantId);
  return Response.json(await (await storage()).getChanges({ tenantId, since, now: new Date(), agentId: agent, op, limit, cursor }));
});
