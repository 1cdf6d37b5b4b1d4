import { apiRoute } from '@/lib/server/api-errors';
import { requestScope, storage } from '../_lib/context';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => Response.json(await (await storage()).listAgentsWithStats({ tenantId: await requestScope(request), now: new Date() })));
