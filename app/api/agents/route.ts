import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { agentNames } from '@/lib/ui/agent-names';
import { requestScope, storage } from '../_lib/context';
import { agentsQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => {
  const { view } = parseQuery(request, agentsQuery);
  const s = await storage();
  const tenantId = await requestScope(request);
  if (view === 'names') return Response.json(agentNames(await s.listAgents({ tenantId })));
  return Response.json(await s.listAgentsWithStats({ tenantId, now: new Date() }));
});
