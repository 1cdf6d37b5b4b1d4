/** Every react-query key of the dashboard, from one place, so prefetch and hooks agree. */
export interface RecordFilters {
  memory_type?: string;
  namespace?: string;
  file?: string;
  tag?: string;
  status?: string;
  tier?: string;
  /** Text filter and sort of the Memories list (`file` when absent). */
  q?: string;
  sort?: string;
}

export interface ChangeFilters {
  since: string;
  agent?: string;
  op?: string;
}

export const queryKeys = {
  agents: () => ['agents'] as const,
  agentNames: () => ['agent-names'] as const,
  /** One agent's summary (its pages' header), fetched alone: not the fleet list. */
  agent: (agentId: string) => ['agent', agentId] as const,
  sequences: (agentId: string) => ['agents', agentId, 'sequences'] as const,
  sequence: (agentId: string, seq: number) => ['agents', agentId, 'sequence', seq] as const,
  records: (agentId: string, at: number | null, filters: RecordFilters) => ['agents', agentId, 'records', at, filters] as const,
  fileRecords: (agentId: string, seq: number, file: string) => ['agents', agentId, 'file-records', seq, file] as const,
  lineage: (agentId: string, recordId: string) => ['agents', agentId, 'lineage', recordId] as const,
  lineagePages: (agentId: string, recordId: string, order: string) => ['agents', agentId, 'lineage', recordId, 'pages', order] as const,
  sequenceOps: (agentId: string, seq: number, op: string) => ['agents', agentId, 'sequence', seq, 'ops', op] as const,
  sequenceRaw: (agentId: string, seq: number) => ['agents', agentId, 'sequence', seq, 'raw'] as const,
  /** The change feed paged by `pageSize` (the fleet's and an agent's feeds page differently). */
  changes: (filters: ChangeFilters, pageSize: number) => ['changes', filters, pageSize] as const,
  search: (q: string, agent: string | null, offset: number) => ['search', q, agent, offset] as const,
  sequenceAt: (agentId: string, time: string) => ['agents', agentId, 'at', time] as const,
  workspace: (agentId: string, seq: number) => ['agents', agentId, 'workspace', seq] as const,
  workspaceFile: (agentId: string, seq: number, path: string) => ['agents', agentId, 'workspace', seq, 'file', path] as const,
  blame: (agentId: string, seq: number, path: string) => ['agents', agentId, 'workspace', seq, 'blame', path] as const,
};
