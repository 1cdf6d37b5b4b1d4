/**
 * Where a sync goes: the local ledger in a data directory, or an ALF service over HTTP.
 * Both speak the same sequence rules (CONTRACT §1.3), so the client flow is written once.
 */
export interface SyncTarget {
  /** Human-readable description for progress output (a data dir or a URL). */
  readonly label: string;
  /** Registers the agent; `alreadyExisted` when it was known before. */
  ensureAgent(agent: { id: string; name: string; runtime: string }): Promise<{ alreadyExisted: boolean; latestSequence: number | null }>;
  /** Stores a full snapshot at the agent's current latest sequence (0 for the first). */
  putSnapshot(agentId: string, bytes: Uint8Array): Promise<{ sequence: number }>;
  /** Appends a delta at base + 1; throws `SyncConflictError` when base is not the latest. */
  pushDelta(agentId: string, baseSequence: number, bytes: Uint8Array): Promise<{ sequence: number }>;
  /** The snapshot and deltas needed to rebuild the agent at `upToSequence` (default: latest). */
  fetchRestore(agentId: string, upToSequence?: number): Promise<RestoreBundle>;
}

export interface RestoreBundle {
  snapshot: { sequence: number; bytes: Uint8Array };
  deltas: { sequence: number; bytes: Uint8Array }[];
  /** The sequence the bundle rebuilds (the requested one, or the latest). */
  sequence: number;
}
