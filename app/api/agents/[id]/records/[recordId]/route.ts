import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { LINEAGE_PAGE } from '@/lib/ui/page-window';
import { requestScope, requireAgent, storage, type Params } from '../../../../_lib/context';
import { lineageQuery } from '../../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

/**
 * A memory's lineage, one page of versions at a time: `limit` (default the lineage page's 50, at
 * most 500), `order` (newest first by default) and `cursor` (the `next_cursor` of the page before).
 * There is no "every version" form: a memory may have thousands of versions.
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string; recordId: string }>) => {
  const { id, recordId } = await params;
  const query = parseQuery(request, lineageQuery);
  await requireAgent(id, await requestScope(request));
  const page = { limit: query.limit ?? LINEAGE_PAGE, cursor: query.cursor, order: query.order };
  return Response.json(found(await (await storage()).getRecordLineage({ agentId: id, recordId, ...page }), `record ${echoInput(recordId)}`));
});
