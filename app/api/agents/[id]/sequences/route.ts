import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, storage, type Params } from '../../../_lib/context';
import { sequencesQuery } from '../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, sequencesQuery);
  return Response.json(found(await (await storage()).getSequences({ agentId: id, tenantId: await requestScope(request), ...query }), `agent ${echoInput(id)}`));
});
