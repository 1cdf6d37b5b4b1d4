'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import type { RawChangesPage, RecordOp, SequenceDetail, SequenceOpsPage } from '../api-types';
import { OPS_PAGE, SEQUENCES_PAGE, windowOptions } from '../page-window';
import { queryKeys } from '../query-keys';
import { RAW_FILES_PAGE } from '../raw-file-window';

/** The agent's sequences, newest first, paged with `before`. */
export function useSequences(agentId: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.sequences(agentId),
    queryFn: ({ pageParam, signal }) => api.sequences(agentId, pageParam, SEQUENCES_PAGE, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
}

export function useSequence(agentId: string, seq: number) {
  return useQuery({ queryKey: queryKeys.sequence(agentId, seq), queryFn: ({ signal }) => api.sequence(agentId, seq, OPS_PAGE, RAW_FILES_PAGE, signal) });
}

/**
 * One op kind of a loaded sequence as a bounded window of pages: the first page is the one the
 * sequence came with, the next ones are asked from …/sequences/:seq/ops with the cursor.
 */
export function useSequenceOps(agentId: string, detail: SequenceDetail, op: RecordOp) {
  return useInfiniteQuery({
    queryKey: queryKeys.sequenceOps(agentId, detail.seq, op),
    queryFn: ({ pageParam, signal }): Promise<SequenceOpsPage> | SequenceOpsPage => (pageParam.cursor === null
      ? { op, items: detail.ops.filter((o) => o.op === op), next_cursor: detail.op_cursors[op] }
      : api.sequenceOps(agentId, detail.seq, op, pageParam.cursor, OPS_PAGE, signal)),
    ...windowOptions<SequenceOpsPage>(OPS_PAGE),
    enabled: detail.op_counts[op] > 0,
  });
}

/**
 * The raw files of a loaded sequence as a bounded window of pages: the first page is the one the
 * sequence came with, the next ones are asked from …/sequences/:seq/raw with the cursor (their op
 * links refer to the same first op pages, `OPS_PAGE` of each kind). The first page is the query's
 * initial data, so the server's render draws it: the raw files are in the first paint.
 */
export function useSequenceRaw(agentId: string, detail: SequenceDetail) {
  const first: RawChangesPage = { items: detail.raw, next_cursor: detail.raw_cursor };
  return useInfiniteQuery({
    queryKey: queryKeys.sequenceRaw(agentId, detail.seq),
    queryFn: ({ pageParam, signal }): Promise<RawChangesPage> | RawChangesPage => (pageParam.cursor === null
      ? first
      : api.sequenceRaw(agentId, detail.seq, pageParam.cursor, RAW_FILES_PAGE, OPS_PAGE, signal)),
    ...windowOptions<RawChangesPage>(RAW_FILES_PAGE),
    initialData: { pages: [first], pageParams: [{ cursor: null }] },
  });
}
