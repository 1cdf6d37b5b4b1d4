'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys } from '../query-keys';

const PAGE = 50;

/** The agent's sequences, newest first, paged with `before`. */
export function useSequences(agentId: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.sequences(agentId),
    queryFn: ({ pageParam, signal }) => api.sequences(agentId, pageParam, PAGE, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
}

export function useSequence(agentId: string, seq: number) {
  return useQuery({ queryKey: queryKeys.sequence(agentId, seq), queryFn: ({ signal }) => api.sequence(agentId, seq, signal) });
}
