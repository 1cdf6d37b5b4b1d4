import { getChanges, parseSince } from '@/lib/history/queries';
import { apiRoute, parseQuery } from '@/lib/server/api-errors';
import { dashboardDb, requireAgent } from '../_lib/context';
import { changesQuery } from '../_lib/schemas';

export const dynamic = 'force-dynamic';

export const GET = apiRoute((request: Request) => {
  const { since, agent, op } = parseQuery(request, changesQuery);
  if (agent !== undefined) requireAgent(agent);
  return Response.json(getChanges({ db: dashboardDb(), since: parseSince(since, new Date()), agentId: agent, op }));
});
