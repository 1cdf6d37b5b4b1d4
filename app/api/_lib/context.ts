/** Shared bits of the dashboard route handlers and pages: the storage, the caller's tenant scope and typed route params. */
import { headers } from 'next/headers';
import type { TenantScope } from '@/lib/history/queries';
import { dashboardStorage } from '@/lib/storage/open';
import type { LineageStorage } from '@/lib/storage/types';
import { ApiFailure, notFound } from '@/lib/server/api-errors';
import { scopeFromHeaders, SIGNED_IN_HEADER } from '@/lib/server/scope-header';
import type { AgentRow } from '@/db/schema';
import { echoInput } from '@/lib/core/echo';

export type Params<P> = { params: Promise<P> };

/** The process's storage (lib/storage/open.ts): every dashboard route and page reads through it, on either backend. */
export const storage = (): Promise<LineageStorage> => dashboardStorage();

/**
 * The agents this request may see, as the guard in front of Next.js decided (lib/server/dashboard-guard.ts), read from the
 * route handler's `request` or, in a page, from `next/headers`:
 * `undefined` = every tenant (loopback without --auth, or an admin key), else one tenant. A request that
 * did not pass the guard throws (401), so nothing is shown by mistake.
 */
export async function requestScope(request?: Request): Promise<TenantScope> {
  const h = request ? request.headers : await headers();
  return scopeFromHeaders((name) => h.get(name));
}

/**
 * Whether the request passed the guard with leave to read (any page but the sign-in page, which
 * anyone may load): the header offers the fleet, search and its search box only then. On the
 * sign-in page its search box was the first field, and a key typed there went into the URL
 * (`/search?q=alf_sk_…`: history, logs).
 */
export async function mayBrowse(): Promise<boolean> {
  try {
    await requestScope();
    return true;
  } catch {
    return false;
  }
}

/** Whether the request carries a dashboard session (the header shows "Sign out"). */
export async function signedIn(): Promise<boolean> {
  return (await headers()).get(SIGNED_IN_HEADER) === '1';
}

/**
 * The agent, or a 404. The guard has already answered 404 for an agent of another tenant named in the
 * path or in `?agent=`; `scope` checks it again where a handler has it.
 */
export async function requireAgent(agentId: string, scope?: TenantScope): Promise<AgentRow> {
  // The storage reads a UUID (trimmed); the path segment must be one as it is.
  const agent = agentId === agentId.trim() ? await (await storage()).getAgent({ agentId, tenantId: scope }) : null;
  if (!agent) throw notFound(`agent ${echoInput(agentId)}`);
  return agent;
}

/** The agent with at least one sync, or a 404. */
export async function requireSynced(agentId: string, scope?: TenantScope): Promise<AgentRow & { latest_sequence: number }> {
  return synced(agentId, await requireAgent(agentId, scope));
}

function synced(agentId: string, agent: AgentRow): AgentRow & { latest_sequence: number } {
  if (agent.latest_sequence === null) throw new ApiFailure('not_found', `agent ${echoInput(agentId)} has never synced`);
  return agent as AgentRow & { latest_sequence: number };
}
