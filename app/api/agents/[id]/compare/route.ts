import { compareWorkspace } from '@/lib/history/queries';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, requestScope, type Params } from '../../../_lib/context';
import { compareQuery } from '../../../_lib/schemas';

/**
 * The net change of the workspace from `from` to `to`: memories created, updated, deleted and moved,
 * files added, changed and removed. A bad range is a 400 in words, a sequence past the latest a 404.
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { from, to } = parseQuery(request, compareQuery);
  const scope = await requestScope(request);
  return Response.json(found(compareWorkspace({ db: dashboardDb(), agentId: id, from, to, tenantId: scope }), `agent ${id}`), {
    headers: { 'cache-control': 'no-store' },
  });
});
