import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireAgent, storage, type Params } from '../../../_lib/context';
import { atQuery } from '../../../_lib/schemas';

/** The sequence in force at `time`, or `null` when the agent had not synced yet. */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { time } = parseQuery(request, atQuery);
  await requireAgent(id, await requestScope(request));
  return Response.json(await (await storage()).sequenceAt({ agentId: id, time }));
});
