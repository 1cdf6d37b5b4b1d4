import type { Readable } from 'node:stream';
import { restoredWorkspaceFiles } from '@/lib/adapters/restored-workspace';
import { foldArchives } from '@/lib/core/restore';
import { databaseRuntime, type DatabaseRuntime } from './database-runtime';
import type { DownloadFile } from './workspace-pages';
import { sequenceTimeOf, tarGzStream, type DownloadSource } from './workspace';
import { zipStream } from './zip-stream';
import { assertSequence, type TenantScope } from './common';

export { databaseRuntime, type DatabaseRuntime } from './database-runtime';

/**
 * What `lineage restore --out` writes for a ZeroClaw or Hermes agent at `seq`: the restore fold of
 * the ledger (the same `foldArchives` the CLI runs) written by the same adapter import
 * (`restoredWorkspaceFiles`), stamped with the sequence's sync time. ZeroClaw: `data/memory/brain.db`
 * holding that agent's rows only, plus its raw files; Hermes: `state.db` with the sessions, plus
 * `memories/*.md` and its other raw files. The sync marker `restore` adds afterwards
 * (`.alf-synced.json`, when the restore ran) is not part of it.
 */
export async function restoredWorkspaceAt(params: { storage: DownloadSource; agentId: string; seq: number; runtime: DatabaseRuntime; tenantId?: TenantScope }): Promise<DownloadFile[]> {
  const { storage } = params;
  const plan = await storage.restorePlan({ agentId: params.agentId, upToSequence: params.seq, tenantId: params.tenantId });
  const archives = await storage.readPlanArchives({ plan });
  const now = await sequenceTimeOf(storage, plan.agentId, plan.sequence);
  const { snapshot } = foldArchives({ ...archives, now });
  try {
    return await restoredWorkspaceFiles({ runtime: params.runtime, snapshot, clock: () => now });
  } catch (error) {
    throw new WorkspaceRebuildError(`the workspace of agent ${plan.agentId} at #${plan.sequence} cannot be rebuilt from its records: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * Stored records the adapter cannot write back (a session record without a session id, say): what
 * `lineage restore` would refuse too. The download route answers it as a 422 that says so.
 */
export class WorkspaceRebuildError extends Error {
  readonly code = 'unrestorable';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkspaceRebuildError';
  }
}

/**
 * The `.tar.gz` or `.zip` download of the workspace at `seq`. ZeroClaw and Hermes: the restored
 * workspace (`restoredWorkspaceAt`); OpenClaw: the indexed raw files, streamed a page at a time
 * (the storage's `downloadFiles`, as `streamWorkspaceArchive` reads them; the workspace byte for
 * byte). Null for an unknown agent.
 */
export async function workspaceArchive(params: { storage: DownloadSource; agentId: string; seq: number; format: 'tar.gz' | 'zip'; tenantId?: TenantScope }): Promise<Readable | null> {
  const { storage } = params;
  const agent = await storage.getAgent({ agentId: params.agentId, tenantId: params.tenantId });
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const runtime = databaseRuntime(agent.source_runtime);
  const mtime = await sequenceTimeOf(storage, agent.id, params.seq);
  let pages: Iterator<DownloadFile[]> | AsyncIterator<DownloadFile[]>;
  if (runtime === null) {
    pages = (await storage.downloadFiles({ agentId: agent.id, seq: params.seq, tenantId: params.tenantId }))![Symbol.asyncIterator]();
  } else {
    pages = pagesOf(await restoredWorkspaceAt({ storage, agentId: agent.id, seq: params.seq, runtime, tenantId: params.tenantId }), 64);
  }
  return params.format === 'zip' ? zipStream({ pages, mtime }) : tarGzStream(pages, mtime);
}

function* pagesOf(files: DownloadFile[], size: number): Generator<DownloadFile[]> {
  for (let i = 0; i < files.length; i += size) yield files.slice(i, i + size);
}
