import { getSequence } from '@/lib/history/queries';
import { apiRoute, found } from '@/lib/server/api-errors';
import { dashboardDb, requireAgent, type Params } from '../../../../_lib/context';
import { sequencePath } from '../../../../_lib/schemas';

export const GET = apiRoute(async (_request: Request, { params }: Params<{ id: string; seq: string }>) => {
  const { id, seq: rawSeq } = await params;
  const { seq } = sequencePath.parse({ seq: rawSeq });
  requireAgent(id);
  return Response.json(found(getSequence({ db: dashboardDb(), agentId: id, seq }), `sequence ${seq} of agent ${id}`));
});
