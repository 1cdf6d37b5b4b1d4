import type { LineageStorage } from '@/lib/storage/types';
import { isLedgerError } from '@/lib/ledger/errors';
import { scaleOutFullError } from '@/lib/ledger/storage-errors';
import { commandTimeoutWords, storageOutOfReach, unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { ledgerRefusal, SupersededBaseError, SyncConflictError, SyncError, UNREACHABLE_RETRY_SECONDS } from './errors';
import type { LatestEntry, SyncTarget } from './target';

/**
 * A sync target over the storage seam (issue 21 §2): what `localTarget` does on a data directory,
 * done through a `LineageStorage` — the scale-out backend (PostgreSQL + S3) when `lineage sync`,
 * `restore` or `sync --rebase` are given `--database-url`/`--blob-url` or the `LINEAGE_*`
 * variables. Same ingest, same answers as the server's; agents it registers belong to no tenant,
 * like the local ones. `open` runs on first use, so an idle sync never connects.
 */
export function storageTarget(args: {
  open: () => Promise<LineageStorage>;
  label: string;
  flags: string;
  now?: () => Date;
}): SyncTarget & { close(): Promise<void> } {
  const now = args.now ?? (() => new Date());
  let opening: Promise<LineageStorage> | null = null;
  const storage = () => (opening ??= args.open());
  /** Agents this target registered whose first snapshot it has not stored yet (`forgetEmptyAgent`). */
  const registeredHere = new Set<string>();
  return {
    label: args.label,
    flags: args.flags,
    ensureAgent: (agent) => mapped(async () => {
      const s = await storage();
      const registered = await s.registerAgent({ id: agent.id, name: agent.name, sourceRuntime: agent.runtime, tenantId: null, now: now() });
      if (registered !== 'exists') {
        registeredHere.add(agent.id);
        return { alreadyExisted: false, latestSequence: null };
      }
      return { alreadyExisted: true, latestSequence: (await s.getAgent({ agentId: agent.id }))?.latest_sequence ?? null };
    }),
    putSnapshot: (agentId, bytes) => mapped(async () => {
      const registered = registeredHere.delete(agentId);
      const s = await storage();
      try {
        return { sequence: (await s.ingestSnapshot({ agentId, bytes, now: now() })).sequence };
      } catch (error) {
        // The agent was registered before its first snapshot (CONTRACT §1.2): refused, that snapshot
        // would leave an empty agent in the database (`lineage serve`'s list and dashboard).
        if (registered && (isLedgerError(error) || scaleOutFullError(error) !== null)) await forgetEmptyAgent(s, agentId, now());
        throw error;
      }
    }),
    pushDelta: (agentId, baseSequence, bytes) => mapped(async () => {
      try {
        return { sequence: (await (await storage()).ingestDelta({ agentId, baseSequence, bytes, now: now() })).sequence };
      } catch (error) {
        if (isLedgerError(error, 'stale_sequence')) throw new SyncConflictError(baseSequence, error.latest ?? null);
        if (isLedgerError(error, 'base_superseded')) throw new SupersededBaseError(baseSequence);
        throw error;
      }
    }),
    fetchRestore: (agentId, upToSequence) => mapped(async () => {
      const s = await storage();
      const plan = await s.restorePlan({ agentId, upToSequence });
      const snapshot = { sequence: plan.snapshot.seq, bytes: await s.readEntryBytes({ entry: plan.snapshot }) };
      const deltas = [];
      for (const entry of plan.deltas) deltas.push({ sequence: entry.seq, bytes: await s.readEntryBytes({ entry }) });
      return { snapshot, deltas, sequence: plan.sequence };
    }),
    latestEntry: (agentId) => mapped(async (): Promise<LatestEntry | null> => {
      const s = await storage();
      const latest = (await s.getAgent({ agentId }))?.latest_sequence;
      if (latest === null || latest === undefined) return null;
      // The entry row holds the blob's sha256: the blob is read only if asked for.
      const entry = (await s.listEntries({ agentId, sinceSeq: latest - 1, upToSeq: latest })).at(-1);
      if (!entry) return null;
      return { sequence: entry.seq, kind: entry.kind, sha256: async () => entry.sha256, bytes: () => s.readEntryBytes({ entry }) };
    }),
    close: async () => {
      if (opening) await (await opening.catch(() => null))?.close();
      opening = null;
    },
  };
}

/**
 * Undoes a sync's registration of `agentId` after the storage refused its first snapshot (a
 * `LedgerError`, or the bucket or the database out of space: `disk_full`; an archive refused after the client's own
 * checks; not a lost connection, which may have come after a COMMIT and leaves the storage out of
 * reach anyway), as a sync over HTTP does (http-target.ts `forgetEmptyAgent`): deleted only if it
 * still holds no entry, which `deleteAgent` judges inside its transaction (`onlyIfEmpty`: another
 * machine's first snapshot stored meanwhile keeps it). An agent registered before this sync is never
 * asked about. A failure here leaves the empty agent, which the next first sync takes as its own
 * (`ensureAgent`); the sync's error is the refusal's either way.
 */
async function forgetEmptyAgent(s: LineageStorage, agentId: string, now: Date): Promise<void> {
  try {
    await s.deleteAgent({ agentId, tenantId: null, now, onlyIfEmpty: true });
  } catch {
    // Kept, empty: see above.
  }
}

/**
 * Ledger refusals as the sync's own errors (the codes `localTarget` gives for the same refusals), and
 * PostgreSQL's cancels and lost connections (lib/ledger/unreachable-storage.ts) as a server's would be
 * answered: `busy` (a lock another process held past the pool's lock_timeout, an operator's cancel;
 * the database or the bucket out of reach), `database_timeout` (a statement past LINEAGE_DATABASE_READ_SECONDS), and the
 * scale-out storage out of space (`scaleOutFullError`) as `disk_full`, where the CLI said the same only as it printed the error.
 */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SyncError) throw error;
    if (isLedgerError(error)) throw ledgerRefusal(error.code, error.message);
    // The bucket at its quota or out of capacity, the database's disk full: `disk_full` naming the store, as the server answers it (507).
    const full = scaleOutFullError(error);
    if (full !== null) throw ledgerRefusal(full.code, full.message);
    // A storage that cannot be opened keeps its own words (`storage_unavailable`, lib/storage/config.ts), whatever its cause.
    // (Not imported: this module loads with every sync, lib/storage/config.ts only with the scale-out settings.)
    if ((error as { code?: unknown } | null)?.code === 'storage_unavailable') throw error;
    const database = unreachableStorageError(error);
    if (database === null) throw error;
    if (database.code === 'database_timeout') {
      const { error: words, hint } = commandTimeoutWords();
      throw new SyncError('database_timeout', words, hint);
    }
    if (!storageOutOfReach(error)) throw ledgerRefusal(database.code, database.message);
    // The connection lost, maybe during a COMMIT: the upload may have been kept, which the next sync finds (recover.ts).
    throw new SyncError('busy', database.message, 'run the same sync again once the storage is back; an upload it did keep is recognised then, not sent twice', UNREACHABLE_RETRY_SECONDS);
  }
}
