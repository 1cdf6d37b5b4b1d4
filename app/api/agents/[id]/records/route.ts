import { getRecordsAt } from '@/lib/history/queries';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, type Params } from '../../../_lib/context';
import { recordsQuery } from '../../../_lib/schemas';

export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, recordsQuery);
  return Response.json(found(getRecordsAt({ db: dashboardDb(), agentId: id, ...query }), `agent ${id}`));
});
