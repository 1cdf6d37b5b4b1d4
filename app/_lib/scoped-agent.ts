/**
 * The agent a page request may see, looked up once per request: the layout, `generateMetadata` and the
 * page share it (React's `cache`), and every lookup carries the tenant scope the guard decided, so a
 * page title can never name another tenant's agent even if the guard in front of Next.js were bypassed.
 */
import { cache } from 'react';
import { requestScope, storage } from '../api/_lib/context';

export const scopedAgent = cache(async (agentId: string) =>
  // The storage reads a UUID (trimmed); the path segment must be one as it is.
  (agentId === agentId.trim() ? (await storage()).getAgent({ agentId, tenantId: await requestScope() }) : null));
