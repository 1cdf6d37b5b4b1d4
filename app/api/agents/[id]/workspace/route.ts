import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireSynced, storage, type Params } from '../../../_lib/context';
import { workspaceQuery } from '../../../_lib/schemas';

/** The file tree at `seq` (default: latest). */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, workspaceQuery);
  const agent = await requireSynced(id, await requestScope(request));
  return Response.json(await (await storage()).getWorkspaceTree({ agentId: agent.id, seq: query.seq ?? agent.latest_sequence }));
});
