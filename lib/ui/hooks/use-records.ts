'use client';

import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, RECORDS_MAX_PAGE } from '../api-client';
import { fetchAllPages } from '../paging';
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

/** Every record live at `seq` in one file, all pages of it (a file's sections are marked from these). */
export function useFileRecords(agentId: string, seq: number, file: string) {
  return useQuery({
    queryKey: queryKeys.fileRecords(agentId, seq, file),
    queryFn: ({ signal }) => fetchAllPages((cursor) => api.records(agentId, seq, { file }, cursor, signal, RECORDS_MAX_PAGE)),
  });
}

export function useLineage(agentId: string, recordId: string) {
  return useQuery({
    queryKey: queryKeys.lineage(agentId, recordId),
    queryFn: ({ signal }) => api.lineage(agentId, recordId, signal),
  });
}
