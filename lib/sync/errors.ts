/**
 * Errors a user can cause in the client flows. `code` follows the reference CLI's registry
 * (CONTRACT §2.1) where one fits; the CLI prints `{ok:false, code, error, hint}`.
 */
export class SyncError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    /**
     * Set when the failure passes by itself (a busy server's 503 and its Retry-After, a server out of
     * reach): the seconds after which the same command may go through. A `lineage watch` tries again then.
     */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

/** How long a `lineage watch` waits before it tries again a sync that reached no server. */
export const UNREACHABLE_RETRY_SECONDS = 30;
/** And one a local data directory's ledger refused as busy (what a server says in its Retry-After). */
const LEDGER_BUSY_RETRY_SECONDS = 5;

/** The ledger is ahead of the base this delta was cut from (HTTP 409 / stale sequence). */
export class SyncConflictError extends SyncError {
  constructor(
    readonly localSequence: number,
    readonly latestSequence: number | null,
  ) {
    super(
      'sync_upload_failed',
      latestSequence === null
        ? `Sequence conflict: your local state is at sequence ${localSequence} but the ledger has moved on.`
        : `Sequence conflict: your local state is at sequence ${localSequence} but the server is at ${latestSequence}. Pull the latest changes first.`,
      'run `lineage restore` to bring the local base up to date, then sync again',
    );
    this.name = 'SyncConflictError';
  }
}

/**
 * The target refused a delta on `localSequence` although that is its latest sequence: its head there
 * is a full snapshot stored after this machine's base (another machine's `--force-first-sync` or a
 * rollover; lib/ledger/ingest-base.ts). A conflict like a stale base (the target answered 409 with
 * `X-Latest-Sequence` equal to the base): sync.ts's `uploadDelta` turns it into recover.ts's
 * `foreignHistoryError`, which names the `--rebase` command.
 */
export class SupersededBaseError extends SyncConflictError {
  constructor(localSequence: number) {
    super(localSequence, localSequence);
    this.message = `Sequence conflict: the head at sequence ${localSequence} is a full snapshot another machine uploaded after this machine's base at that sequence; nothing was uploaded`;
    this.name = 'SupersededBaseError';
  }
}

/** The hint of an upload refused for what it holds (a bad archive): the ledger stored none of it. */
export const REFUSED_UPLOAD_HINT = 'nothing of this upload was stored: change what the error names in the workspace, then sync again';

/**
 * A ledger's refusal (its `code` and message) as the sync's own error, the same whichever target
 * refused: a local data directory (local-target.ts) or the scale-out storage (storage-target.ts).
 */
export function ledgerRefusal(code: string, message: string): SyncError {
  if (code === 'agent_not_found' || code === 'never_synced') return new SyncError('agent_not_found', message);
  if (code === 'bad_archive') return new SyncError('sync_upload_failed', message, REFUSED_UPLOAD_HINT);
  // Another process holds the ledger for now (an index rebuild, a write lock): nothing was stored; it passes.
  if (code === 'busy') return new SyncError(code, message, 'nothing was stored: run the same sync again in a moment', LEDGER_BUSY_RETRY_SECONDS);
  return new SyncError(code, message);
}
