/** Shared bits of the dashboard route handlers: the ledger's database and typed route params. */
import { getLedger } from '@/lib/server/db';
import { findAgent } from '@/lib/history/queries/common';
import { notFound } from '@/lib/server/api-errors';
import type { AgentRow } from '@/db/schema';

export type Params<P> = { params: Promise<P> };

export const dashboardDb = () => getLedger().db;

/** The agent, or a 404. */
export function requireAgent(agentId: string): AgentRow {
  const agent = findAgent(dashboardDb(), agentId);
  if (!agent) throw notFound(`agent ${agentId}`);
  return agent;
}
