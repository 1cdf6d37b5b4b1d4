/**
 * The embedded implementation of the storage seam: today's SQLite + filesystem code, unchanged and
 * unmoved, each verb called as it is and its answer handed back as a promise. Nothing is cached
 * or translated here, so the embedded backend keeps its speed and its behaviour. A verb that reads
 * the index first folds the entries a local sync left pending (`indexCaughtUp`: one indexed
 * `SELECT … LIMIT 1` when there are none). A serving process (`startMaintenance`) has those folds
 * made on its ingest thread, and folds what it finds pending when it starts.
 */
import { closeDatabase, newerSchemaSince } from '@/db/client';
import { deleteAgent, getAgent, listAgents, listDeletedAgents, registerAgent } from '@/lib/ledger/agents';
import { startCheckpointer } from '@/lib/ledger/checkpointer';
import { getEntry, listEntries, readEntryBytesFrom, readPlanArchivesFrom, restorePlan } from '@/lib/ledger/entries';
import { LedgerError } from '@/lib/ledger/errors';
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { sweepOrphanBlobs } from '@/lib/ledger/orphans';
import { startPackingLeftWhole } from '@/lib/ledger/run-packer';
import { getAgentWithStats, listAgentsWithStats } from '@/lib/history/queries/agents';
import { getAgentMemoryDto } from '@/lib/history/queries/memory-dto';
import { getChanges } from '@/lib/history/queries/changes';
import { getSequence, getSequences, sequenceAt } from '@/lib/history/queries/sequences';
import { getSequenceOps } from '@/lib/history/queries/sequence-ops';
import { getSequenceRaw } from '@/lib/history/queries/sequence-raw';
import { getRecordsAt } from '@/lib/history/queries/records';
import { getRecordLineage } from '@/lib/history/queries/lineage';
import { findAgent, assertSequence } from '@/lib/history/queries/common';
import { getWorkspaceFile, getWorkspaceTree } from '@/lib/history/queries/workspace';
import { liveFilePages } from '@/lib/history/queries/workspace-pages';
import { searchHistory } from '@/lib/history/search/engine';
import { compareWorkspace } from '@/lib/history/queries/compare';
import { getFileBlame } from '@/lib/history/queries/blame';
import { getDatabaseRecords } from '@/lib/history/queries/database-records';
import { rebuildIndex } from '@/lib/history/rebuild';
import { catchUpForRead, foldPendingElsewhere, indexNotice, indexPending } from '@/lib/history/pending-index';
import {
  countApiKeys, createApiKey, endSession, handOverAgents, identifyKey, keyIdentityById, listApiKeys, revokeApiKey, rotateApiKey, sessionKeyIdentity,
} from '@/lib/server/api-keys';
import { UploadStore } from '@/lib/server/upload-store';
import type { IngestParams, LineageStorage, PendingUploads } from './types';
import { startSweeps } from './maintenance';
import { ingestDelta, ingestSnapshot } from './embedded-ingest';
import { catchUpOffThread, ingestOffThread } from './offload';
import { rebuildInProgress } from '@/lib/ledger/rebuild-marker';
import { storageError } from '@/lib/ledger/storage-errors';

/** The embedded storage keeps its ledger at hand for what only a data directory has (tests, `lineage doctor`). */
export interface EmbeddedStorage extends LineageStorage {
  readonly backend: 'embedded';
  readonly ledger: Ledger;
}

/** The ledger of an embedded storage; throws for any other backend (callers that need the data directory itself). */
export function embeddedLedger(storage: LineageStorage): Ledger {
  if (storage.backend !== 'embedded') throw new Error('this needs the embedded storage (a data directory), not the scale-out one');
  return (storage as EmbeddedStorage).ledger;
}

/** Today's ingest, on the ingest thread for a large upload. */
function ingest(ledger: Ledger, kind: 'snapshot' | 'delta', p: IngestParams & { baseSequence?: number }) {
  const { offThread, ...params } = p;
  if (offThread) return ingestOffThread({ ledger, kind, ...params, limits: { ...params.limits } as Record<string, number> });
  return kind === 'snapshot' ? ingestSnapshot({ ledger, ...params }) : ingestDelta({ ledger, ...params, baseSequence: p.baseSequence! });
}

function uploadsOf(store: UploadStore): PendingUploads {
  return {
    create: (input) => store.create(input),
    get: (id) => store.get(id),
    putBytes: async (id, bytes) => store.putBytes(id, bytes),
    readBytes: async (id, limits) => {
      const bytes = await store.readBytes(id);
      if (bytes && limits && bytes.byteLength > limits.maxBytes) {
        throw new LedgerError('payload_too_large', `upload ${id} holds ${bytes.byteLength} bytes, more than the limit ${limits.maxBytes}`);
      }
      return bytes;
    },
    uploadUrl: async () => null,
    markConfirmed: async (upload, confirmed) => store.markConfirmed(upload, confirmed),
    exclusive: (_id, task) => task(),
    remove: (id) => store.remove(id),
    removeAgent: (agentId) => store.removeAgent(agentId),
    sweep: (now, graceMs) => store.sweep(now, graceMs),
  };
}

/**
 * Folds the entries a local sync appended without indexing (lib/history/pending-index.ts): every
 * verb that reads the index (or the ledger rows' counts) awaits this first. A read-only data
 * directory is read as its index stands, and so is one being rebuilt by another process, or one
 * whose fold fails (`catchUpForRead`: a pending entry's blob damaged, missing or unreadable, content
 * the fold does not take, the database read-only, full or locked past a read's wait): the read
 * answers, and the agent's `indexNotice` says where its history stops and why (`lineage doctor`
 * names it; ingest refuses what it cannot fold).
 */
async function indexCaughtUp(ledger: Ledger, serving: boolean): Promise<void> {
  const { sqlite } = ledger.db;
  if (sqlite.readonly || !indexPending(sqlite)) return;
  // A rebuild in another process holds the write lock for its whole run, and folds everything.
  if (rebuildInProgress(ledger.db.dataDir) !== null) return;
  const failed = await catchUpForRead(ledger);
  // A one-shot read (`lineage search`: no pages, no notice) says the database's failure rather than answer
  // an incomplete history without a word (tests/cli/full-disk-deferred-fold.test.ts); a serving process's pages say it in their notice.
  if (failed !== null && !serving) throw storageError(failed, ledger.db.dataDir) ?? failed;
}

/** The storage seam over an open ledger (its database and blob store); `close` closes the database. */
export function embeddedStorage(ledger: Ledger): EmbeddedStorage {
  const db = ledger.db;
  let uploads: PendingUploads | null = null;
  // Set by startMaintenance: a serving process, whose agent pages show indexNotice.
  let serving = false;
  const caughtUp = () => indexCaughtUp(ledger, serving);
  return {
    backend: 'embedded',
    ledger,
    blobs: ledger.blobs,
    get uploads() {
      // `<data>/uploads/` is made on first use, as the server does today.
      return (uploads ??= uploadsOf(new UploadStore(db.dataDir)));
    },
    blobDownloadUrl: async () => null,
    registerAgent: async (p) => registerAgent({ ledger, ...p }),
    getAgent: async (p) => getAgent({ ledger, ...p }),
    listAgents: async (p) => listAgents({ ledger, ...p }),
    deleteAgent: (p) => deleteAgent({ ledger, ...p }),
    listDeletedAgents: async () => listDeletedAgents({ ledger }),
    // Loaded on use: only `lineage doctor --repair` asks.
    removeLeftovers: async (p) => (await import('@/lib/ledger/consistency')).removeLeftoversOf(ledger, p),
    ingestSnapshot: (p) => ingest(ledger, 'snapshot', p),
    ingestDelta: (p) => ingest(ledger, 'delta', p),
    listEntries: async (p) => { await caughtUp(); return listEntries({ ledger, ...p }); },
    getEntry: async (p) => { await caughtUp(); return getEntry({ ledger, ...p }); },
    restorePlan: async (p) => restorePlan({ ledger, ...p }),
    readEntryBytes: (p) => readEntryBytesFrom(ledger.blobs, p.entry),
    readPlanArchives: (p) => readPlanArchivesFrom(ledger.blobs, p.plan),
    rebuildIndex: () => rebuildIndex({ ledger }),
    listAgentsWithStats: async (p) => { await caughtUp(); return listAgentsWithStats({ db, ...p }); },
    getAgentWithStats: async (p) => { await caughtUp(); return getAgentWithStats({ db, ...p }); },
    indexNotice: async (p) => {
      await caughtUp();
      // The tenant guard's scope: another tenant's agent has nothing to say.
      const agent = findAgent(db, p.agentId, p.tenantId);
      return agent ? indexNotice(ledger, agent.id) : null;
    },
    getAgentMemoryDto: async (p) => { await caughtUp(); return getAgentMemoryDto({ db, ...p }); },
    getSequences: async (p) => { await caughtUp(); return getSequences({ db, ...p }); },
    getSequence: async (p) => { await caughtUp(); return getSequence({ db, ...p }); },
    getSequenceOps: async (p) => { await caughtUp(); return getSequenceOps({ db, ...p }); },
    getSequenceRaw: async (p) => { await caughtUp(); return getSequenceRaw({ db, ...p }); },
    sequenceAt: async (p) => { await caughtUp(); return sequenceAt({ db, ...p }); },
    getRecordsAt: async (p) => { await caughtUp(); return getRecordsAt({ db, ...p }); },
    getRecordLineage: async (p) => { await caughtUp(); return getRecordLineage({ db, ...p }); },
    getChanges: async (p) => { await caughtUp(); return getChanges({ db, ...p }); },
    getWorkspaceTree: async (p) => { await caughtUp(); return getWorkspaceTree({ db, ...p }); },
    getWorkspaceFile: async (p) => { await caughtUp(); return getWorkspaceFile({ db, ...p }); },
    downloadFiles: async (p) => {
      await caughtUp();
      // The checks streamWorkspaceArchive makes before it streams.
      const agent = findAgent(db, p.agentId, p.tenantId);
      if (!agent) return null;
      assertSequence(agent, p.seq);
      const pages = liveFilePages(db, agent.id, p.seq, p.pageSize);
      return (async function* () {
        yield* pages;
      })();
    },
    search: async (p) => { await caughtUp(); return searchHistory({ db, ...p }); },
    compareWorkspace: async (p) => { await caughtUp(); return compareWorkspace({ db, ...p }); },
    getFileBlame: async (p) => { await caughtUp(); return getFileBlame({ db, ...p }); },
    getDatabaseRecords: async (p) => { await caughtUp(); return getDatabaseRecords({ db, ...p }); },
    createApiKey: async (p) => createApiKey({ db, ...p }),
    listApiKeys: async () => listApiKeys({ db }),
    countApiKeys: async () => countApiKeys(db),
    revokeApiKey: async (p) => revokeApiKey({ db, ...p }),
    handOverAgents: async (p) => handOverAgents({ db, ...p }),
    rotateApiKey: async (p) => rotateApiKey({ db, ...p }),
    identifyKey: async (p) => identifyKey({ db, ...p }),
    keyIdentityById: async (id) => keyIdentityById(db, id),
    newerSchema: async () => newerSchemaSince(db),
    sessionKeyIdentity: async (p) => sessionKeyIdentity(db, p),
    endSession: async (p) => endSession(db, p),
    startMaintenance(p) {
      serving = true;
      // Checkpoints run in a worker thread, not inside an upload's commit on the event loop.
      const checkpointer = startCheckpointer(db, { log: p.log });
      // So do the folds of pending entries this process would otherwise make on its event loop
      // (no background catch-up at work): a 50,000-record snapshot's takes seconds of CPU.
      foldPendingElsewhere(db.sqlite, (agentId, options) => catchUpOffThread(ledger, agentId, options));
      const sweeps = startSweeps(p, [
        // What a killed or never-started background catch-up left pending: folded before a reader asks.
        ['index catch-up', () => caughtUp()],
        ['upload sweep', (now) => this.uploads.sweep(now)],
        ['blob sweep', (now) => sweepOrphanBlobs({ ledger, now })],
        // Off the request path: a detached, low-priority process (lib/ledger/background-packer.ts).
        ['blob packing', () => startPackingLeftWhole(ledger)],
      ]);
      return { stop: async () => { serving = false; sweeps.stop(); foldPendingElsewhere(db.sqlite, null); await checkpointer.stop(); } };
    },
    close: async () => closeDatabase(db),
  };
}

/** The embedded storage of a data directory (`<data>/lineage.db` + `<data>/blobs/`). */
export function openEmbeddedStorage(dataDir: string): EmbeddedStorage {
  return embeddedStorage(openLedger(dataDir));
}
