'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import { queryKeys } from '../query-keys';

export function useWorkspaceTree(agentId: string, seq: number | null) {
  return useQuery({
    queryKey: queryKeys.workspace(agentId, seq ?? -1),
    queryFn: ({ signal }) => api.workspace(agentId, seq ?? 0, signal),
    enabled: seq !== null,
    placeholderData: keepPreviousData,
  });
}

export function useWorkspaceFile(agentId: string, seq: number | null, path: string | null) {
  return useQuery({
    queryKey: queryKeys.workspaceFile(agentId, seq ?? -1, path ?? ''),
    queryFn: ({ signal }) => api.workspaceFile(agentId, seq ?? 0, path ?? '', signal),
    enabled: seq !== null && path !== null,
  });
}

/** The blame of one file at `seq` (each section's birth, last change and move); only fetched when `enabled`. */
export function useFileBlame(agentId: string, seq: number, path: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.blame(agentId, seq, path),
    queryFn: ({ signal }) => api.blame(agentId, seq, path, signal),
    enabled,
  });
}

/** The sequence in force at an ISO time ("as of" picker). */
export function useSequenceAt(agentId: string, time: string | null) {
  return useQuery({
    queryKey: queryKeys.sequenceAt(agentId, time ?? ''),
    queryFn: ({ signal }) => api.sequenceAt(agentId, time ?? '', signal),
    enabled: time !== null,
  });
}
