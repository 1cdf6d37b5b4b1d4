'use client';

import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../api-client';
import type { AgentSummary } from '../api-types';
import { queryKeys } from '../query-keys';

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents(), queryFn: ({ signal }) => api.agents(signal) });
}

/** One agent from the fleet list; a missing agent is an ApiError 404. */
export function useAgent(agentId: string) {
  const query = useAgents();
  const agent: AgentSummary | undefined = query.data?.find((a) => a.id === agentId);
  const error = query.error ?? (query.data && !agent ? new ApiError(404, `agent ${agentId} not found`) : null);
  return { agent, error, isPending: query.isPending, refetch: query.refetch };
}
