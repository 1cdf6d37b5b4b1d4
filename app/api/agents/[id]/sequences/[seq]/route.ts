import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireAgent, storage, type Params } from '../../../../_lib/context';
import { sequencePath, sequenceQuery } from '../../../../_lib/schemas';
import { RAW_PAGE } from '@/lib/history/queries/sequence-raw';
import { echoInput } from '@/lib/core/echo';

/**
 * The first page of each op kind (`?limit=`, default 100) and of the raw files (`?raw_limit=`, default
 * 100); `op_cursors` page on through …/ops, `raw_cursor` through …/raw.
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string; seq: string }>) => {
  const { id, seq: rawSeq } = await params;
  const { seq } = sequencePath.parse({ seq: rawSeq });
  const { limit, raw_limit: rawLimit } = parseQuery(request, sequenceQuery);
  await requireAgent(id, await requestScope(request));
  return Response.json(found(await (await storage()).getSequence({ agentId: id, seq, opsLimit: limit ?? 100, rawLimit: rawLimit ?? RAW_PAGE }), `sequence ${seq} of agent ${echoInput(id)}`));
});
