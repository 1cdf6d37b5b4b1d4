import type { WrittenDelta } from '@/lib/core/archive/write-delta';
import type { WrittenSnapshot } from '@/lib/core/archive/write-snapshot';
import type { RecordChecks } from '@/lib/ledger/record-checks';

/**
 * Where a sync goes: the local ledger in a data directory, or an ALF service over HTTP.
 * Both speak the same sequence rules (CONTRACT §1.3), so the client flow is written once.
 */
export interface SyncTarget {
  /** Human-readable description for progress output (a data dir or a URL). */
  readonly label: string;
  /** The flags that name this target on the command line, for hints (`--data DIR`, `--server URL`). */
  readonly flags: string;
  /**
   * What tells this target from another in the client state's mark (target-mark.ts), when the
   * label does not: a server's URL with a digest of its key (a key names a tenant). Default: the label.
   */
  readonly identity?: string;
  /** Registers the agent; `alreadyExisted` when it was known before. */
  ensureAgent(agent: { id: string; name: string; runtime: string }): Promise<{ alreadyExisted: boolean; latestSequence: number | null }>;
  /**
   * Told, before the archive is made, that a snapshot of `records` records is coming (optional),
   * and whether it comes with its written form: a local target starts its ingest thread for a
   * large one meanwhile, unless it will check the written form instead (local-target.ts).
   */
  expectSnapshot?(agentId: string, records: number, written?: boolean): void;
  /**
   * Stores a full snapshot at the agent's current latest sequence (0 for the first). `written`:
   * the snapshot as the bytes hold it (write-snapshot.ts `writeSnapshotRead`), which a target in
   * this process may check instead of reading the bytes back (local-target.ts).
   */
  putSnapshot(agentId: string, bytes: Uint8Array, written?: WrittenSnapshot, checked?: RecordChecks): Promise<{ sequence: number }>;
  /**
   * Appends a delta at base + 1; throws `SyncConflictError` when base is not the latest. `written`:
   * the delta as the bytes hold it (write-delta.ts `writeDeltaRead`), which a target in this
   * process may check instead of reading the bytes back (local-target.ts).
   */
  pushDelta(agentId: string, baseSequence: number, bytes: Uint8Array, written?: WrittenDelta): Promise<{ sequence: number }>;
  /** The snapshot and deltas needed to rebuild the agent at `upToSequence` (default: latest). */
  fetchRestore(agentId: string, upToSequence?: number): Promise<RestoreBundle>;
  /**
   * Deletes the agent only if it holds no entry, judged by the target inside its own transaction (a
   * snapshot stored meanwhile keeps it: refused, nothing deleted). Only what undoes a refused first
   * snapshot's registration asks it (first-snapshot-undo.ts, which decides when); throws when the
   * delete was refused or failed.
   */
  forgetAgent(agentId: string): Promise<void>;
  /** The agent's latest entry (null when it has none): what a sync checks against the upload it recorded. */
  latestEntry(agentId: string): Promise<LatestEntry | null>;
  /**
   * The agent's latest sequence as the target says it (null: it has no such agent), asked after an
   * idle sync (sync.ts `checkIdleAgainstTarget`). Only a server has it: its storage is an operator's,
   * who may put it back from a backup without this machine knowing. A target in this process
   * (`--data`, `--database-url`) is the user's own and is not asked (an idle sync opens nothing).
   */
  headSequence?(agentId: string): Promise<number | null>;
}

export interface LatestEntry {
  sequence: number;
  kind: 'snapshot' | 'delta';
  /** The sha256 of its blob (the local ledger knows it without reading the blob). */
  sha256(): Promise<string>;
  bytes(): Promise<Uint8Array>;
}

export interface RestoreBundle {
  snapshot: { sequence: number; bytes: Uint8Array };
  deltas: { sequence: number; bytes: Uint8Array }[];
  /** The sequence the bundle rebuilds (the requested one, or the latest). */
  sequence: number;
}
