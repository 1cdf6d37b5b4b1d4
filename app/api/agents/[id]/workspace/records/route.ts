import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireSynced, storage, type Params } from '../../../../_lib/context';
import { workspaceRecordsQuery } from '../../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

/** The rows of a ZeroClaw or Hermes agent's database at `seq` (default: latest), paged (none for an OpenClaw agent). */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, workspaceRecordsQuery);
  const agent = await requireSynced(id, await requestScope(request));
  const result = await (await storage()).getDatabaseRecords({
    agentId: agent.id, seq: query.seq ?? agent.latest_sequence, limit: query.limit, cursor: query.cursor,
  });
  return Response.json(found(result, `a database of agent ${echoInput(id)}`));
});
