import { searchFirstAppearance } from '@/lib/history/queries';
import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, requireAgent } from '../_lib/context';
import { searchQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute((request: Request) => {
  const { q, agent, limit, offset } = parseQuery(request, searchQuery);
  if (agent !== undefined) requireAgent(agent);
  return Response.json(searchFirstAppearance({ db: dashboardDb(), q, agentId: agent, limit, offset }));
});
