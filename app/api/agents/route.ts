import { listAgentsWithStats } from '@/lib/history/queries';
import { apiRoute } from '@/lib/server/api-errors';
import { dashboardDb, requestScope } from '../_lib/context';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(async (request: Request) => Response.json(listAgentsWithStats({ db: dashboardDb(), tenantId: await requestScope(request), now: new Date() })));
