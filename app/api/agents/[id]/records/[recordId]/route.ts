import { getRecordLineage } from '@/lib/history/queries';
import { apiRoute, found } from '@/lib/server/api-errors';
import { dashboardDb, requireAgent, type Params } from '../../../../_lib/context';

export const GET = apiRoute(async (_request: Request, { params }: Params<{ id: string; recordId: string }>) => {
  const { id, recordId } = await params;
  requireAgent(id);
  return Response.json(found(getRecordLineage({ db: dashboardDb(), agentId: id, recordId }), `record ${recordId}`));
});
