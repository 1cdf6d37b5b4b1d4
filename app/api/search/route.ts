import { searchFirstAppearance } from '@/lib/history/queries';
import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, requestScope, requireAgent } from '../_lib/context';
import { searchQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => {
  const { q, agent, limit, offset } = parseQuery(request, searchQuery);
  const tenantId = await requestScope(request);
  if (agent !== undefined) requireAgent(agent, tenantId);
  return Response.json(searchFirstAppearance({ db: dashboardDb(), tenantId, q, agentId: agent, limit, offset }));
});
