import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import type { AgentName } from '@/lib/ui/api-types';
import { requestScope, storage } from '../_lib/context';
import { agentsQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => {
  const { view } = parseQuery(request, agentsQuery);
  const s = await storage();
  const tenantId = await requestScope(request);
  if (view === 'names') {
    const names: AgentName[] = (await s.listAgents({ tenantId })).map((a) => ({ id: a.id, name: a.name, runtime: a.source_runtime }));
    return Response.json(names);
  }
  return Response.json(await s.listAgentsWithStats({ tenantId, now: new Date() }));
});
