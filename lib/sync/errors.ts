/**
 * Errors a user can cause in the client flows. `code` follows the reference CLI's registry
 * (CONTRACT §2.1) where one fits; the CLI prints `{ok:false, code, error, hint}`.
 */
export class SyncError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

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
