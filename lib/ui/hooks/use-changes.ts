'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys, type ChangeFilters } from '../query-keys';

export function useChanges(filters: ChangeFilters) {
  return useQuery({
    queryKey: queryKeys.changes(filters),
    queryFn: ({ signal }) => api.changes(filters, signal),
    placeholderData: keepPreviousData,
  });
}
