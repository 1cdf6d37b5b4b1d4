import { ApiFailure, apiRoute, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireSynced, storage, type Params } from '../../../../_lib/context';
import { blameQuery } from '../../../../_lib/schemas';
import { echoPath } from '@/lib/core/echo';

/** Blame of one file at `seq` (default: latest): each section's birth, last change and move, and the file's own lines. */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, blameQuery);
  const agent = await requireSynced(id, await requestScope(request));
  const seq = query.seq ?? agent.latest_sequence;
  const blame = await (await storage()).getFileBlame({ agentId: agent.id, seq, path: query.path });
  if (!blame) throw new ApiFailure('not_found', `${echoPath(query.path)} is not a file of the workspace at sequence ${seq}`);
  return Response.json(blame, { headers: { 'cache-control': query.seq === undefined ? 'no-store' : 'private, max-age=31536000, immutable' } });
});
