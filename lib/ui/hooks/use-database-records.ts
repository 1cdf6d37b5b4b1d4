'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DatabaseRecordsResult } from '@/lib/history/queries';
import type { RestoredDatabase } from '@/lib/history/queries/restored-database';
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

/** The database file of a ZeroClaw/Hermes workspace at `seq`: its path and size as the downloads carry it (GET …/workspace/database). */
export function useRestoredDatabase(agentId: string, seq: number, enabled: boolean) {
  return useQuery({
    queryKey: ['agents', agentId, 'workspace', seq, 'database-file'] as const,
    queryFn: ({ signal }) => getJson<RestoredDatabase>(withQuery(`/api/agents/${encodeURIComponent(agentId)}/workspace/database`, { seq }), signal),
    placeholderData: keepPreviousData,
    enabled,
  });
}
