'use client';

import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, RECORDS_MAX_PAGE } from '../api-client';
import type { Lineage, RecordsAt } from '../api-types';
import { LINEAGE_PAGE, RECORDS_PAGE, windowOptions } from '../page-window';
import { fetchAllPages } from '../paging';
import { queryKeys, type RecordFilters } from '../query-keys';

/** Records live at `at` (null = latest) with the given filters, paged by cursor. */
export function useRecords(agentId: string, at: number | null, filters: RecordFilters, enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.records(agentId, at, filters),
    queryFn: ({ pageParam, signal }) => api.records(agentId, at, filters, pageParam.cursor, signal, RECORDS_PAGE),
    ...windowOptions<RecordsAt>(RECORDS_PAGE),
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

/** A lineage as a bounded window of version pages in `order` ("load older/newer versions" goes on). */
export function useLineagePages(agentId: string, recordId: string, order: 'newest' | 'oldest') {
  return useInfiniteQuery({
    queryKey: queryKeys.lineagePages(agentId, recordId, order),
    queryFn: ({ pageParam, signal }) => api.lineagePage(agentId, recordId, order, pageParam.cursor, LINEAGE_PAGE, signal),
    ...windowOptions<Lineage>(LINEAGE_PAGE),
  });
}
