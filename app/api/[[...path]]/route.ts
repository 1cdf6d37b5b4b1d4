import { ApiFailure, apiRoute } from '@/lib/server/api-errors';
import { requestScope } from '../_lib/context';
import { echoPath } from '@/lib/core/echo';

/**
 * Any /api path no route handles (`/api/nope`, `/api/agents/x/../at` once normalised): a JSON 404
 * naming it, where Next.js rendered its HTML not-found page. Behind the guard like every route.
 */
export const GET = apiRoute(async (request: Request) => {
  await requestScope(request);
  throw new ApiFailure('not_found', `no such API endpoint: GET ${echoPath(new URL(request.url).pathname)}`);
});
