'use client';

import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys, type RecordFilters } from '../query-keys';

/** Records live at `at` (null = latest) with the given filters, paged by cursor. */
export function useRecords(agentId: string, at: number | null, filters: RecordFilters, enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.records(agentId, at, filters),
    queryFn: ({ pageParam, signal }) => api.records(agentId, at, filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useLineage(agentId: string, recordId: string) {
  return useQuery({
    queryKey: queryKeys.lineage(agentId, recordId),
    queryFn: ({ signal }) => api.lineage(agentId, recordId, signal),
  });
}
