import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requireAgent, storage, type Params } from '../../../../_lib/context';
import { lineageQuery } from '../../../../_lib/schemas';

/** A memory's lineage: every version, or with `limit`/`cursor`/`order` one page of them (`next_cursor` goes on). */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string; recordId: string }>) => {
  const { id, recordId } = await params;
  const query = parseQuery(request, lineageQuery);
  await requireAgent(id);
  const paged = query.limit !== undefined || query.cursor !== undefined || query.order !== undefined;
  const page = paged ? { limit: query.limit ?? 50, cursor: query.cursor, order: query.order } : {};
  return Response.json(found(await (await storage()).getRecordLineage({ agentId: id, recordId, ...page }), `record ${recordId}`));
});
