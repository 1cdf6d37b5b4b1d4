'use client';

import { useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import type { AgentSummary } from '../api-types';
import { queryKeys } from '../query-keys';

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents(), queryFn: ({ signal }) => api.agents(signal) });
}

/** The agents' ids and names alone (an agent filter): not the fleet's stats, which only the fleet page draws. */
export function useAgentNames() {
  return useQuery({ queryKey: queryKeys.agentNames(), queryFn: ({ signal }) => api.agentNames(signal) });
}

/**
 * One agent's summary, asked for alone (GET /api/agents/:id): an agent page costs one agent's
 * stats, not the whole fleet's (bench/ui-scale). A missing agent is an ApiError 404.
 */
export function useAgent(agentId: string) {
  const query = useQuery({ queryKey: queryKeys.agent(agentId), queryFn: ({ signal }) => api.agent(agentId, signal) });
  const agent: AgentSummary | undefined = query.data;
  return { agent, error: query.error, isPending: query.isPending, refetch: query.refetch };
}
