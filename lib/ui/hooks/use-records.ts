'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys, type RecordFilters } from '../query-keys';

/** Records live at `at` (null = latest) with the given filters. */
export function useRecords(agentId: string, at: number | null, filters: RecordFilters, enabled = true) {
  return useQuery({
    queryKey: queryKeys.records(agentId, at, filters),
    queryFn: ({ signal }) => api.records(agentId, at, filters, signal),
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
