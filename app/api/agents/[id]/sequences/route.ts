import { getSequences } from '@/lib/history/queries';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, type Params } from '../../../_lib/context';
import { sequencesQuery } from '../../../_lib/schemas';

export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, sequencesQuery);
  return Response.json(found(getSequences({ db: dashboardDb(), agentId: id, ...query }), `agent ${id}`));
});
