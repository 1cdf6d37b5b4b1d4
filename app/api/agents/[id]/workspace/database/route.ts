import { WorkspaceRebuildError } from '@/lib/history/queries';
import { restoredDatabaseAt } from '@/lib/history/queries/restored-database';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireSynced, storage, type Params } from '../../../../_lib/context';
import { workspaceQuery } from '../../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

/**
 * The database file of a ZeroClaw or Hermes workspace at `seq` (default: latest) — path and size,
 * as the downloads carry it — for the file tree; both null for a runtime without one (OpenClaw).
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, workspaceQuery);
  const agent = await requireSynced(id, await requestScope(request));
  try {
    const database = await restoredDatabaseAt({ storage: await storage(), agentId: agent.id, seq: query.seq ?? agent.latest_sequence });
    return Response.json(found(database, `a database of agent ${echoInput(id)}`));
  } catch (error) {
    if (error instanceof WorkspaceRebuildError) return Response.json({ error: error.message }, { status: 422 });
    throw error;
  }
});
