'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys } from '../query-keys';

export const SEARCH_PAGE = 50;

export function useSearch(q: string, agent: string | null, offset: number) {
  return useQuery({
    queryKey: queryKeys.search(q, agent, offset),
    queryFn: ({ signal }) => api.search(q, agent, offset, SEARCH_PAGE, signal),
    enabled: q.trim().length > 0,
    placeholderData: keepPreviousData,
  });
}
