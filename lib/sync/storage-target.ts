import type { LineageStorage } from '@/lib/storage/types';
import { isLedgerError } from '@/lib/ledger/errors';
import { scaleOutFullError } from '@/lib/ledger/storage-errors';
import { commandTimeoutWords, storageOutOfReach, unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { ledgerRefusal, SupersededBaseError, SyncConflictError, SyncError, UNREACHABLE_RETRY_SECONDS } from './errors';
import { refusedWhole, undoRefusedFirstSnapshot } from './first-snapshot-undo';
import type { LatestEntry, SyncTarget } from './target';

/**
 * A sync target over the storage seam (issue 21 §2): what `localTarget` does on a data directory,
 * done through a `LineageStorage` — the scale-out backend (PostgreSQL + S3) when `lineage sync`,
 * `restore` or `sync --rebase` are given `--database-url`/`--blob-url` or the `LINEAGE_*`
 * variables. Same ingest, same answers as the server's; agents it registers belong to no tenant,
 * like the local ones. `open` runs on first use, so an idle sync never connects. A first snapshot
 * the storage refuses has this target's registration undone (first-snapshot-undo.ts): a ledger's
 * refusal and the storage out of space are refusals of the whole upload (`mapped`).
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
  return undoRefusedFirstSnapshot({
    label: args.label,
    flags: args.flags,
    ensureAgent: (agent) => mapped(async () => {
      const s = await storage();
      const registered = await s.registerAgent({ id: agent.id, name: agent.name, sourceRuntime: agent.runtime, tenantId: null, now: now() });
      if (registered !== 'exists') return { alreadyExisted: false, latestSequence: null };
      return { alreadyExisted: true, latestSequence: (await s.getAgent({ agentId: agent.id }))?.latest_sequence ?? null };
    }),
    putSnapshot: (agentId, bytes) => mapped(async () => ({ sequence: (await (await storage()).ingestSnapshot({ agentId, bytes, now: now() })).sequence })),
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
    // `deleteAgent` judges "no entry" inside its transaction: another machine's first snapshot stored meanwhile keeps the agent.
    forgetAgent: (agentId) => mapped(async () => {
      await (await storage()).deleteAgent({ agentId, tenantId: null, now: now(), onlyIfEmpty: true });
    }),
    close: async () => {
      if (opening) await (await opening.catch(() => null))?.close();
      opening = null;
    },
  });
}

/**
 * Ledger refusals as the sync's own errors (the codes `localTarget` gives for the same refusals), and
 * PostgreSQL's cancels and lost connections (lib/ledger/unreachable-storage.ts) as a server's would be
 * answered: `busy` (a lock another process held past the pool's lock_timeout, an operator's cancel;
 * the database or the bucket out of reach), `database_timeout` (a statement past LINEAGE_DATABASE_READ_SECONDS), and the
 * scale-out storage out of space (`scaleOutFullError`) as `disk_full`, where the CLI said the same only as it printed the error.
 * Those two — a ledger's refusal, the storage out of space — are refusals of the whole request (`refusedWhole`); a lost
 * connection, which may have come after a COMMIT, a cancel or a time limit are not.
 */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SyncError) throw error;
    if (isLedgerError(error)) throw refusedWhole(ledgerRefusal(error.code, error.message));
    // The bucket at its quota or out of capacity, the database's disk full: `disk_full` naming the store, as the server answers it (507).
    const full = scaleOutFullError(error);
    if (full !== null) throw refusedWhole(ledgerRefusal(full.code, full.message));
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
