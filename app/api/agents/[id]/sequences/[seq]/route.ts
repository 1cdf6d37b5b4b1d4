import { getSequence } from '@/lib/history/queries';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, requireAgent, type Params } from '../../../../_lib/context';
import { sequencePath, sequenceQuery } from '../../../../_lib/schemas';

/** The first page of each op kind (`?limit=`, default 100); `op_cursors` page on through …/ops. */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string; seq: string }>) => {
  const { id, seq: rawSeq } = await params;
  const { seq } = sequencePath.parse({ seq: rawSeq });
  const { limit } = parseQuery(request, sequenceQuery);
  requireAgent(id);
  return Response.json(found(getSequence({ db: dashboardDb(), agentId: id, seq, opsLimit: limit ?? 100 }), `sequence ${seq} of agent ${id}`));
});
