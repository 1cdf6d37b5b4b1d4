import type { AgentRow } from '@/lib/ledger/agents';
import type { LayerCounts } from '@/lib/client/types';

/** AgentInfo as CONTRACT §1.2 shapes it; `latest_sequence` is 0 before the first sync. */
export interface AgentInfoDto {
  id: string;
  name: string;
  source_runtime: string | null;
  created_at: string;
  latest_sequence: number;
  layer_counts?: LayerCounts;
}

/** Projects an agent row (plus, on GET, its folded layer counts) to AgentInfo. */
export function toAgentInfo(row: AgentRow, layerCounts?: LayerCounts): AgentInfoDto {
  return {
    id: row.id,
    name: row.name,
    source_runtime: row.source_runtime,
    created_at: row.created_at,
    latest_sequence: row.latest_sequence ?? 0,
    ...(layerCounts ? { layer_counts: layerCounts } : {}),
  };
}
