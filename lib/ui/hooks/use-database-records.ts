'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DatabaseRecordsResult } from '@/lib/history/queries';
import { getJson, withQuery } from '../api-client';

/** Rows a page of the database table holds: the table never draws more than this at once. */
export const DATABASE_PAGE_ROWS = 200;

/** One page of a ZeroClaw/Hermes agent's database rows at `seq` (GET …/workspace/records), from `cursor` (null = first). */
export function useDatabaseRecords(agentId: string, seq: number, cursor: string | null, enabled: boolean) {
  return useQuery({
    queryKey: ['agents', agentId, 'workspace', seq, 'database', cursor] as const,
    queryFn: ({ signal }) => getJson<DatabaseRecordsResult>(
      withQuery(`/api/agents/${encodeURIComponent(agentId)}/workspace/records`, { seq, cursor, limit: DATABASE_PAGE_ROWS }), signal),
    placeholderData: keepPreviousData,
    enabled,
  });
}
