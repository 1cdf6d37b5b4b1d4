/** Shared bits of the dashboard route handlers: the ledger's database and typed route params. */
import { findAgent } from '@/lib/history/queries';
import { getLedger } from '@/lib/server/db';
import { ApiFailure, notFound } from '@/lib/server/api-errors';
import type { AgentRow } from '@/db/schema';

export type Params<P> = { params: Promise<P> };

export const dashboardDb = () => getLedger().db;

/** The agent, or a 404. */
export function requireAgent(agentId: string): AgentRow {
  const agent = findAgent(dashboardDb(), agentId);
  if (!agent) throw notFound(`agent ${agentId}`);
  return agent;
}

/** The agent with at least one sync, or a 404. */
export function requireSynced(agentId: string): AgentRow & { latest_sequence: number } {
  const agent = requireAgent(agentId);
  if (agent.latest_sequence === null) throw new ApiFailure('not_found', `agent ${agentId} has never synced`);
  return agent as AgentRow & { latest_sequence: number };
}
