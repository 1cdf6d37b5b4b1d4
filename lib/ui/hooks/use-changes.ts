'use client';

import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import type { Changes } from '../api-types';
import { CHANGES_PAGE, windowOptions } from '../page-window';
import { queryKeys, type ChangeFilters } from '../query-keys';

/** The change feed, keyset-paged ("load more") by `pageSize`, at most MAX_DRAWN_ROWS changes held at once. */
export function useChanges(filters: ChangeFilters, pageSize = CHANGES_PAGE) {
  return useInfiniteQuery({
    queryKey: queryKeys.changes(filters, pageSize),
    queryFn: ({ pageParam, signal }) => api.changes(filters, pageParam.cursor, pageSize, signal),
    ...windowOptions<Changes>(pageSize),
    placeholderData: keepPreviousData,
  });
}
