/**
 * The scale-out implementation of the storage seam: PostgreSQL (drizzle pg-core migrations, `pg`)
 * for the ledger's sequence check, the history index, keys and pending uploads; an S3-compatible
 * bucket for the blobs (write-once keys) and staged uploads. Any number of processes may open it on
 * the same database and bucket: appends serialise on the agent's row, a rebuild on an advisory lock.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { newerPgSchemaSince, openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import type { BlobStore } from '@/lib/ledger/blob-store';
import type { S3Location } from '@/lib/ledger/s3-config';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import * as agents from './pg/agents';
import { listAgentsWithStats } from './pg/agent-stats';
import { deleteAgent, listDeletedAgents, removeLeftoverObjects } from './pg/delete-agent';
import { getAgentMemoryDto } from './pg/memory';
import { readEntryBytesFrom, readPlanArchivesFrom } from '@/lib/ledger/entries';
import { startSweeps } from './maintenance';
import { getChanges } from './pg/changes';
import { getSequence, getSequenceOps, getSequenceRaw, getSequences, sequenceAt } from './pg/sequences';
import { ingestDelta, ingestSnapshot, type PgBackend } from './pg/ingest';
import { getRecordLineage } from './pg/lineage';
import { getRecordsAt } from './pg/records';
import { rebuildIndex } from './pg/rebuild';
import { searchHistory } from './pg/search';
import { mergeSearchPendingList } from './pg/statistics';
import { compareWorkspace } from './pg/compare';
import { getFileBlame } from './pg/blame';
import { getDatabaseRecords } from './pg/database-records';
import { pgPendingUploads } from './pg/uploads';
import { getWorkspaceFile, getWorkspaceTree, liveFilePages } from './pg/workspace';
import { assertSequence } from '@/lib/history/queries/common';
import type { LineageStorage } from './types';

/**
 * How long a presigned S3 GET stays valid by default (`LINEAGE_S3_DOWNLOAD_SECONDS`, config.ts). The
 * bucket checks only the URL's own signature, so a link handed out before its key was revoked still
 * works until it expires (a proxied download checks the key on every request): short, since a
 * restore fetches its links right away.
 */
export const DEFAULT_PRESIGNED_GET_SECONDS = 300;

/**
 * The storage over an open database, a blob store and the bucket's staging prefix.
 * `downloads`: 'presigned' (default) hands clients S3 presigned GETs of the blobs, valid the shorter
 * of what the caller asks and `presignedGetSeconds` (a revoked key's links live that long: config.ts);
 * 'proxied' answers null so the server streams them (a bucket clients cannot reach).
 */
export function scaleOutStorage(params: {
  db: PgLineageDb; blobs: BlobStore; client: S3Client; location: S3Location; downloads?: 'presigned' | 'proxied'; presignedGetSeconds?: number;
}): LineageStorage {
  const { db } = params;
  const pool = db.pool;
  const backend: PgBackend = { db, blobs: params.blobs };
  const uploads = pgPendingUploads(pool, { client: params.client, location: params.location });
  return {
    backend: 'scale-out',
    blobs: params.blobs,
    uploads,
    blobDownloadUrl: async ({ key, expiresInSeconds }) => {
      if (params.downloads === 'proxied' || !(params.blobs instanceof S3BlobStore)) return null;
      return params.blobs.presignDownload(key, Math.min(expiresInSeconds, params.presignedGetSeconds ?? DEFAULT_PRESIGNED_GET_SECONDS));
    },
    registerAgent: (p) => agents.registerAgent(pool, p),
    getAgent: (p) => agents.getAgent(pool, p),
    listAgents: (p) => agents.listAgents(pool, p),
    deleteAgent: (p) => deleteAgent(pool, params.blobs, p),
    listDeletedAgents: () => listDeletedAgents(pool),
    removeLeftovers: (p) => removeLeftoverObjects(pool, params.blobs, p),
    ingestSnapshot: ({ offThread: _, ...p }) => ingestSnapshot(backend, p),
    ingestDelta: ({ offThread: _, ...p }) => ingestDelta(backend, p),
    listEntries: (p) => agents.listEntries(pool, p),
    getEntry: (p) => agents.getEntry(pool, p),
    restorePlan: (p) => agents.restorePlan(pool, p),
    readEntryBytes: (p) => readEntryBytesFrom(params.blobs, p.entry),
    readPlanArchives: (p) => readPlanArchivesFrom(params.blobs, p.plan),
    rebuildIndex: () => rebuildIndex(backend),
    listAgentsWithStats: (p) => listAgentsWithStats(pool, p),
    getAgentWithStats: async (p) => (await listAgentsWithStats(pool, p))[0] ?? null,
    // Every entry is folded in its ingest's transaction (pg/ingest.ts): the index never lags the ledger.
    indexNotice: async () => null,
    getAgentMemoryDto: (p) => getAgentMemoryDto(pool, p),
    getSequences: (p) => getSequences(pool, p),
    getSequence: (p) => getSequence(pool, p),
    getSequenceOps: (p) => getSequenceOps(pool, p),
    getSequenceRaw: (p) => getSequenceRaw(pool, p),
    sequenceAt: (p) => sequenceAt(pool, p),
    getRecordsAt: (p) => getRecordsAt(pool, p),
    getRecordLineage: (p) => getRecordLineage(pool, p),
    getChanges: (p) => getChanges(pool, p),
    getWorkspaceTree: (p) => getWorkspaceTree(pool, p),
    getWorkspaceFile: (p) => getWorkspaceFile(pool, p),
    downloadFiles: async (p) => {
      const agent = await agents.findAgent(pool, p.agentId, p.tenantId);
      if (!agent) return null;
      assertSequence(agent, p.seq);
      return liveFilePages(pool, agent.id, p.seq, p.pageSize);
    },
    search: (p) => searchHistory(pool, p),
    compareWorkspace: (p) => compareWorkspace(pool, p),
    getFileBlame: (p) => getFileBlame(pool, p),
    getDatabaseRecords: (p) => getDatabaseRecords(pool, p),
    createApiKey: (p) => agents.createApiKey(pool, p),
    listApiKeys: () => agents.listApiKeys(pool),
    countApiKeys: () => agents.countApiKeys(pool),
    revokeApiKey: (p) => agents.revokeApiKey(pool, p),
    handOverAgents: (p) => agents.handOverAgents(pool, p),
    rotateApiKey: (p) => agents.rotateApiKey(pool, p),
    identifyKey: (p) => agents.identifyKey(pool, p),
    keyIdentityById: (id) => agents.keyIdentityById(pool, id),
    sessionKeyIdentity: (p) => agents.sessionKeyIdentity(pool, p),
    endSession: (p) => agents.endSession(pool, p),
    // Pending uploads past their expiry (row + staged object) and staged objects no upload owns
    // (staging-sweep.test.ts). Final keys are never swept: a blob whose process died before its
    // commit continues its agent's ledger, and only `lineage doctor --repair` decides about it.
    // The search index's pending list merged, so small deltas never leave every search reading it
    // (search-plan.test.ts).
    startMaintenance: (p) => startSweeps(p, [
      ['upload sweep', (now) => uploads.sweep(now)],
      ['search index merge', () => mergeSearchPendingList(pool)],
    ]),
    newerSchema: () => newerPgSchemaSince(pool),
    close: async () => {
      await db.close();
      params.client.destroy();
    },
  };
}

/** Opens (and migrates) the database at `databaseUrl` and the bucket location with `client`. */
export async function openScaleOutStorage(params: {
  databaseUrl: string; client: S3Client; location: S3Location; poolSize?: number; downloads?: 'presigned' | 'proxied'; presignedGetSeconds?: number;
  databaseReadMs?: number;
}): Promise<LineageStorage> {
  const db = await openPgDatabase(params.databaseUrl, { max: params.poolSize, readTimeoutMs: params.databaseReadMs });
  return scaleOutStorage({
    db, blobs: new S3BlobStore(params.client, params.location), client: params.client, location: params.location,
    downloads: params.downloads, presignedGetSeconds: params.presignedGetSeconds,
  });
}
