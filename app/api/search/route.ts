import { searchOptions } from '@/lib/history/search/options';
import { apiRoute, badRequest, rejectRepeatedParams } from '@/lib/server/api-errors';
import { requestScope, requireAgent, storage } from '../_lib/context';
import { echoInput } from '@/lib/core/echo';

export const dynamic = 'force-dynamic';

/**
 * GET /api/search?q=&agent=&limit=&offset=: the search engine's answer, the same JSON
 * `lineage search` prints. The query is checked by the engine, whose 400s say what was wrong.
 */
export const GET = apiRoute(async (request: Request) => {
  const params = new URL(request.url).searchParams;
  rejectRepeatedParams(params);
  const unknown = [...params.keys()].find((k) => !['q', 'agent', 'limit', 'offset'].includes(k));
  if (unknown !== undefined) throw badRequest(`unknown parameter "${echoInput(unknown)}": search takes q, agent, limit and offset`);
  const options = searchOptions({ q: params.get('q'), agent: params.get('agent'), limit: params.get('limit'), offset: params.get('offset') });
  const tenantId = await requestScope(request);
  if (options.agentId !== undefined) await requireAgent(options.agentId, tenantId);
  return Response.json(await (await storage()).search({ tenantId, ...options }));
});
