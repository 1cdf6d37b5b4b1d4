import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireAgent, storage, type Params } from '../../../../../_lib/context';
import { sequencePath, sequenceRawQuery } from '../../../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

/** One page of a sequence's raw files (`?cursor=…&limit=…&ops_limit=…`), for the sequence view's "load more". */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string; seq: string }>) => {
  const { id, seq: rawSeq } = await params;
  const { seq } = sequencePath.parse({ seq: rawSeq });
  const { limit, cursor, ops_limit: opsLimit } = parseQuery(request, sequenceRawQuery);
  const tenantId = await requestScope(request);
  const agent = await requireAgent(id, tenantId);
  if (agent.latest_sequence === null || seq > agent.latest_sequence) {
    return Response.json({ error: `sequence ${seq} of agent ${echoInput(id)} does not exist (the latest is ${agent.latest_sequence ?? 'none'})` }, { status: 404 });
  }
  return Response.json(found(await (await storage()).getSequenceRaw({ agentId: id, seq, tenantId, limit, cursor, opsLimit }), `agent ${echoInput(id)}`));
});
