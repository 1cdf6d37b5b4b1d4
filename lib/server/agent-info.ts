import type { AgentRow } from '@/lib/ledger/agents';
import type { AgentInfo, LayerCounts } from '@/lib/client/types';

/** AgentInfo as CONTRACT §1.2 shapes it (one wire type for server and client); `latest_sequence` is 0 before the first sync. */
export type AgentInfoDto = AgentInfo;

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
