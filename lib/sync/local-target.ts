import type { WrittenDelta } from '@/lib/core/archive/write-delta';
import type { WrittenSnapshot } from '@/lib/core/archive/write-snapshot';
import type { Ledger } from '@/lib/ledger';
import type { RecordChecks } from '@/lib/ledger/record-checks';
import { ledgerRefusal, SupersededBaseError, SyncConflictError, SyncError } from './errors';
import { refusedWhole, undoRefusedFirstSnapshot } from './first-snapshot-undo';
import type { SyncTarget } from './target';

/**
 * How the blobs a local sync stores whole get packed once their group is complete: `background`
 * (what a user gets) starts a detached packer process and returns; `inline` runs the pass in this
 * process before the upload returns (tests and benchmarks that look at the packed files at once).
 */
export type LocalPacking = 'background' | 'inline';

/**
 * How a large upload is indexed: `background` (what a user gets) appends the entry, marks it
 * pending and starts a detached `lineage index --catch-up` (lib/history/pending-index.ts: readers
 * and the next ingest fold what is still pending themselves); `inline` indexes every upload in
 * its append's transaction. An upload smaller than `BACKGROUND_INDEX_FROM` is indexed inline
 * either way: folding it costs less than starting a process.
 */
export type LocalIndexing = 'background' | 'inline';

/**
 * Records, delta lines and raw files from which an upload's fold is left to the background: a
 * fold costs ~0.05–0.3 ms per line (plus its share of the commit), a detached process ~2–5 ms of
 * the sync's time to start (and its own start-up, off the sync's path).
 */
export const BACKGROUND_INDEX_FROM = 256;

/**
 * Uploads of at least this many bytes, and snapshots announced with at least `INGEST_THREAD_RECORDS`
 * records (`expectSnapshot`, which starts the thread once the snapshot is made and checked;
 * a snapshot whose fold is deferred is checked as written on this thread instead), are ingested on
 * the ingest thread (lib/storage/offload.ts, its own connection to the data directory), as a
 * server ingests in a process of its own: parsing and checking a first sync's 50,000 records is
 * ~300 ms of CPU, which the sync's own thread spends meanwhile laying out and writing its client
 * state (sync.ts). A smaller upload stays on this thread: the thread's start (its script built or
 * read and compiled, the database opened) would cost more than it saves.
 */
export const INGEST_THREAD_FROM = 1024 * 1024;
export const INGEST_THREAD_RECORDS = 8192;

/**
 * A sync target backed by the local ledger in a data directory: the same ingest code the
 * server runs, without HTTP in between. Local agents belong to no tenant. A first snapshot the
 * ledger refuses has this target's registration undone (first-snapshot-undo.ts): any failure of
 * its ingest is a refusal of the whole upload (`putSnapshot`).
 */
export function localTarget(
  dataDir: string, now: () => Date = () => new Date(),
  options: {
    packing?: LocalPacking; indexing?: LocalIndexing; /** `INGEST_THREAD_FROM` unless given (tests). */ ingestThreadFrom?: number;
    /**
     * How the detached processes an upload asks for (the fold's catch-up, the packer) are started:
     * at once (the default), or handed to the caller, which starts them once it has answered (a
     * watch, after it relays a sync's output: spawning one costs a large process ~10 ms).
     */
    startDetached?: (start: () => void) => void;
  } = {},
): SyncTarget {
  // Opened on first use: a sync that fails before uploading (a bad workspace) creates nothing.
  // The ledger's modules (SQLite, drizzle, the archive readers) load then too: an idle sync,
  // which never reaches the target, does not pay for them at start-up.
  let opened: Ledger | null = null;
  let L: LedgerModules;
  // Blobs are stored whole at ingest and packed a group at a time, off the sync's path (packAfterUpload).
  const open = (): Ledger => (opened ??= L.ledger.openLedger(dataDir, { packing: 'deferred' }));
  const ledgerCall = async <T>(fn: () => Promise<T>): Promise<T> => {
    L ??= await loadLedgerModules();
    return mappedLedgerCall(L, fn);
  };
  const deferIndexFrom = (options.indexing ?? 'background') === 'background' ? BACKGROUND_INDEX_FROM : undefined;
  const threadFrom = options.ingestThreadFrom ?? INGEST_THREAD_FROM;
  /**
   * A snapshot as written, its fold deferred, is checked in this thread as written and not read
   * back on the ingest thread (for a 50k-record first sync, a parse of ~37 MB of JSONL in a cold
   * isolate): `expectSnapshot` starts no thread for it, and `ingest` takes it here.
   */
  const checkedAsWritten = (written: unknown): boolean => Boolean(written) && deferIndexFrom !== undefined;
  /** `expectSnapshot` started the thread for the snapshot to come. */
  let snapshotExpected = false;
  const ingest = (kind: 'snapshot' | 'delta', agentId: string, bytes: Uint8Array, baseSequence?: number, written?: WrittenDelta | WrittenSnapshot, checked?: RecordChecks) => {
    const params = { ledger: open(), agentId, bytes, now: now(), deferIndexFrom };
    const expected = kind === 'snapshot' && snapshotExpected;
    if (kind === 'snapshot') snapshotExpected = false;
    if (kind === 'snapshot' && checkedAsWritten(written)) return L.ingest.ingestSnapshot({ ...params, written: written as WrittenSnapshot, checked });
    if (expected || bytes.byteLength >= threadFrom) return L.offload.ingestOffThread({ ...params, kind, baseSequence, blobPacking: 'deferred' });
    // In this thread, the delta as written is checked (when its fold is deferred), not read back.
    return kind === 'snapshot' ? L.ingest.ingestSnapshot(params) : L.ingest.ingestDelta({ ...params, baseSequence: baseSequence!, written: written as WrittenDelta | undefined });
  };
  const detached = options.startDetached ?? ((start: () => void) => start());
  const afterUpload = async (result: { sequence: number; indexDeferred?: boolean }) => {
    // A catch-up that failed before (a full disk, since freed: this upload was stored) is started again,
    // and so is one that left entries pending with no record (killed; no room for its record) and none alive.
    if (result.indexDeferred || L.indexer.indexCatchUpFailed(dataDir) || L.indexer.catchUpLeftUndone(dataDir, open().db.sqlite)) {
      detached(() => startIndexer(L, dataDir));
    }
    await packAfterUpload(L, open(), result.sequence, options.packing ?? 'background', detached);
    return { sequence: result.sequence };
  };
  return undoRefusedFirstSnapshot({
    label: dataDir,
    flags: `--data ${dataDir}`,
    ensureAgent: (agent) => ledgerCall(async () => {
      const registered = L.ledger.registerAgent({ ledger: open(), id: agent.id, name: agent.name, sourceRuntime: agent.runtime, tenantId: null, now: now() });
      if (registered !== 'exists') return { alreadyExisted: false, latestSequence: null };
      const existing = L.ledger.getAgent({ ledger: open(), agentId: agent.id });
      return { alreadyExisted: true, latestSequence: existing?.latest_sequence ?? null };
    }),
    expectSnapshot: (_agentId, records, written) => {
      // After ensureAgent: the modules are loaded, the database made.
      if (records < INGEST_THREAD_RECORDS || opened === null || checkedAsWritten(written)) return;
      snapshotExpected = true;
      L.offload.warmIngestThread(opened, 'deferred');
    },
    putSnapshot: (agentId, bytes, written, checked) => ledgerCall(async () => {
      let result;
      try {
        result = await ingest('snapshot', agentId, bytes, undefined, written, checked);
      } catch (error) {
        // An ingest here is over once it throws (in this thread, or the ingest thread's answer):
        // whatever it refused, it stored nothing.
        throw refusedWhole(asSyncError(L, error));
      }
      return afterUpload(result);
    }),
    pushDelta: (agentId, baseSequence, bytes, written) =>
      ledgerCall(async () => {
        try {
          return await afterUpload(await ingest('delta', agentId, bytes, baseSequence, written));
        } catch (error) {
          if (L.ledger.isLedgerError(error, 'stale_sequence')) throw new SyncConflictError(baseSequence, error.latest ?? null);
          if (L.ledger.isLedgerError(error, 'base_superseded')) throw new SupersededBaseError(baseSequence);
          throw error;
        }
      }),
    fetchRestore: (agentId, upToSequence) =>
      ledgerCall(async () => {
        // A read: a data directory that does not exist is not created (a mistyped --data).
        if (opened === null && !L.db.databaseExists(dataDir)) {
          throw new SyncError('agent_not_found', `agent ${agentId} not found: no lineage data directory at ${dataDir}`,
            'pass --data DIR (or set LINEAGE_DATA) to the directory lineage sync wrote, or --server URL --key KEY');
        }
        const ledger = open();
        const plan = L.ledger.restorePlan({ ledger, agentId, upToSequence });
        const snapshot = { sequence: plan.snapshot.seq, bytes: await L.ledger.readEntryBytes({ ledger, entry: plan.snapshot }) };
        const deltas = [];
        for (const entry of plan.deltas) deltas.push({ sequence: entry.seq, bytes: await L.ledger.readEntryBytes({ ledger, entry }) });
        return { snapshot, deltas, sequence: plan.sequence };
      }),
    latestEntry: (agentId) =>
      ledgerCall(async () => {
        if (opened === null && !L.db.databaseExists(dataDir)) return null;
        const ledger = open();
        const latest = L.ledger.getAgent({ ledger, agentId })?.latest_sequence;
        if (latest === null || latest === undefined) return null;
        // The ledger itself: its row holds the blob's sha256; the blob is read only if asked for.
        const entry = L.ledger.listEntries({ ledger, agentId, sinceSeq: latest - 1, upToSeq: latest }).at(-1);
        if (!entry) return null;
        return { sequence: entry.seq, kind: entry.kind, sha256: async () => entry.sha256, bytes: () => L.ledger.readEntryBytes({ ledger, entry }) };
      }),
    // `deleteAgent` judges "no entry" inside its write transaction: another process's first snapshot of the agent, stored meanwhile, keeps it.
    forgetAgent: (agentId) =>
      ledgerCall(async () => {
        await L.ledger.deleteAgent({ ledger: open(), agentId, tenantId: null, now: now(), onlyIfEmpty: true });
      }),
  });
}

/** The deferred fold's process; a failure to start it leaves the entry pending for the next reader or ingest. */
function startIndexer(L: LedgerModules, dataDir: string): void {
  try {
    L.indexer.startBackgroundIndexer(dataDir);
  } catch {
    // folded by whoever reads the index next
  }
}

/**
 * The first blob of a packing group (blob-packing.ts) completes the group before it: a pass is
 * requested, and a packer started unless one runs (lib/ledger/background-packer.ts). A pass still
 * pending — asked for earlier and not finished: the packer was killed, or could not start — is
 * started again by the next upload. Packing needs nothing of the upload, which is already
 * committed: a failure here leaves blobs whole, readable, and is not the sync's.
 */
async function packAfterUpload(L: LedgerModules, ledger: Ledger, sequence: number, packing: LocalPacking, detached: (start: () => void) => void): Promise<void> {
  const { dataDir } = ledger.db;
  try {
    if (!L.packer.packingEnabled()) return;
    if (sequence > 0 && sequence % L.ledger.PACK_GROUP === 0) L.packer.requestPacking(dataDir);
    if (!L.packer.packingPending(dataDir)) return;
    if (packing === 'inline') await (await import('@/lib/ledger/run-packer')).runPacker({ dataDir });
    else {
      detached(() => {
        try {
          L.packer.startBackgroundPacker(dataDir);
        } catch {
          // asked again by the next upload
        }
      });
    }
  } catch {
    // the blobs stay whole until the next pass
  }
}

type LedgerModules = {
  ledger: typeof import('@/lib/ledger'); db: typeof import('@/db/client'); ingest: typeof import('@/lib/storage/embedded-ingest');
  checks: typeof import('@/lib/ledger/record-checks');
  offload: typeof import('@/lib/storage/offload');
  packer: typeof import('@/lib/ledger/background-packer'); indexer: typeof import('@/lib/history/background-indexer');
};

async function loadLedgerModules(): Promise<LedgerModules> {
  const [ledger, db, ingest, offload, packer, indexer, checks] = await Promise.all([
    import('@/lib/ledger'), import('@/db/client'), import('@/lib/storage/embedded-ingest'), import('@/lib/storage/offload'),
    import('@/lib/ledger/background-packer'), import('@/lib/history/background-indexer'), import('@/lib/ledger/record-checks'),
  ]);
  return { ledger, db, ingest, offload, packer, indexer, checks };
}

async function mappedLedgerCall<T>(L: LedgerModules, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw asSyncError(L, error);
  }
}

/** A ledger's refusal as the sync's own error (`ledgerRefusal`); any other error as it is. */
function asSyncError(L: LedgerModules, error: unknown): unknown {
  if (error instanceof SyncError) return error;
  if (L.ledger.isLedgerError(error)) return ledgerRefusal(error.code, error.message);
  return error;
}
