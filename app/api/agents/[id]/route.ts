import { apiRoute, found } from '@/lib/server/api-errors';
import { requestScope, storage, type Params } from '../../_lib/context';
import { echoInput } from '@/lib/core/echo';
import { agentSummary } from '../../_lib/agent-summary';

export const dynamic = 'force-dynamic';

/** One agent with its dashboard stats (what its pages' header shows): the fleet list's entry, computed alone, and its `index_notice`. */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  return Response.json(found(await agentSummary(await storage(), { tenantId: await requestScope(request), now: new Date(), agentId: id }), `agent ${echoInput(id)}`));
});
