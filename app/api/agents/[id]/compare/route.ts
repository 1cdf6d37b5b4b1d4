import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, storage, type Params } from '../../../_lib/context';
import { compareQuery } from '../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

/**
 * The net change of the workspace from `from` to `to`: memories created, updated, deleted and moved,
 * files added, changed and removed. A bad range is a 400 in words, a sequence past the latest a 404.
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { from, to } = parseQuery(request, compareQuery);
  const scope = await requestScope(request);
  const comparison = await (await storage()).compareWorkspace({ agentId: id, from, to, tenantId: scope });
  return Response.json(found(comparison, `agent ${echoInput(id)}`), {
    headers: { 'cache-control': 'no-store' },
  });
});
