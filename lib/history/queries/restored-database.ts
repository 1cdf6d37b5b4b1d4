import { DATABASE_FILE } from './database-records';
import { databaseRuntime } from './database-runtime';
import { restoredWorkspaceAt } from './restored-download';
import { assertSequence, type TenantScope } from './common';
import type { DownloadSource } from './workspace';

export interface RestoredDatabase {
  seq: number;
  /** Where restore and the downloads write it: `data/memory/brain.db` (ZeroClaw) or `state.db` (Hermes); null for a runtime without one (OpenClaw). */
  path: string | null;
  /** Bytes of the database file as the downloads carry it at `seq`; null without one. */
  size: number | null;
}

/**
 * The database file of a ZeroClaw or Hermes agent's workspace at `seq`, as the downloads and
 * `lineage restore --out` write it (rebuilt from the records by the one writer, restoredWorkspaceAt):
 * its path and size, for the workspace's file tree. Path and size null for a runtime without one
 * (OpenClaw); null for an unknown agent.
 */
export async function restoredDatabaseAt(params: { storage: DownloadSource; agentId: string; seq: number; tenantId?: TenantScope }): Promise<RestoredDatabase | null> {
  const agent = await params.storage.getAgent({ agentId: params.agentId, tenantId: params.tenantId });
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const runtime = databaseRuntime(agent.source_runtime);
  if (runtime === null) return { seq: params.seq, path: null, size: null };
  const files = await restoredWorkspaceAt({ storage: params.storage, agentId: agent.id, seq: params.seq, runtime, tenantId: params.tenantId });
  const file = files.find((f) => f.name === DATABASE_FILE[runtime]);
  return { seq: params.seq, path: file ? file.name : null, size: file ? file.data.byteLength : null };
}
