import { listAgentsWithStats } from '@/lib/history/queries';
import { apiRoute } from '@/lib/server/api-errors';
import { dashboardDb } from '../_lib/context';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(() => Response.json(listAgentsWithStats({ db: dashboardDb(), now: new Date() })));
