/** Wire shapes of the ALF protocol (CONTRACT §1.2), as the service returns them. */

export interface LayerCounts {
  credentials: number;
  principals: number;
  identity: number;
}

/** `AgentInfo`; `layer_counts` is absent on the register reply and present on GET. */
export interface AgentInfo {
  id: string;
  name: string;
  source_runtime: string | null;
  created_at: string;
  latest_sequence: number;
  layer_counts?: LayerCounts;
}

export interface SnapshotUploadResult {
  snapshot_id: string;
  sequence: number;
  size_bytes: number;
  blob_key?: string;
}

export interface DeltaUploadResult {
  delta_id: string;
  sequence: number;
  size_bytes: number;
}

export interface DeltaLink {
  url: string;
  sequence: number;
  size_bytes: number;
  created_at: string;
}

export interface RestoreResponse {
  snapshot: { url: string; snapshot_id: string; sequence: number } | null;
  deltas: DeltaLink[];
}

export interface SnapshotLink {
  snapshot_url: string;
  snapshot_id: string;
  sequence: number;
}

export interface DeleteResult {
  deleted: boolean;
  objects_removed: number;
}

export interface RegisterAgentInput {
  id: string;
  name: string;
  source_runtime: string;
}
