/**
 * The agent a page request may see, looked up once per request: the layout, `generateMetadata` and the
 * page share it (React's `cache`), and every lookup carries the tenant scope the guard decided, so a
 * page title can never name another tenant's agent even if the guard in front of Next.js were bypassed.
 */
import { cache } from 'react';
import { findAgent } from '@/lib/history/queries';
import { getLedger } from '@/lib/server/db';
import { requestScope } from '../api/_lib/context';

export const scopedAgent = cache(async (agentId: string) => findAgent(getLedger().db, agentId, await requestScope()));
