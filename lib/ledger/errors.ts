/** Error codes a ledger operation can fail with; the HTTP layer maps them to statuses. */
export type LedgerErrorCode =
  | 'stale_sequence'
  | 'agent_not_found'
  | 'agent_exists'
  | 'agent_mismatch'
  | 'base_mismatch'
  | 'no_snapshot'
  | 'never_synced'
  | 'sequence_out_of_range'
  | 'bad_archive'
  | 'invalid_input'
  | 'blob_missing'
  | 'blob_corrupt'
  /** A write-once blob key already holds other bytes (S3BlobStore): nothing was overwritten. */
  | 'blob_conflict'
  | 'busy'
  | 'disk_full'
  | 'read_only';

/** Extra facts carried by some errors (e.g. the agent's latest sequence on a stale push). */
export interface LedgerErrorDetails {
  latest?: number | null;
  /** `blob_corrupt`: the entry whose blob is damaged. */
  agentId?: string;
  sequence?: number;
  /** `disk_full`, `read_only`: the directory that could not be written. */
  path?: string;
}

/** A ledger failure with a stable `code` and a message that says what was wrong. */
export class LedgerError extends Error {
  readonly details: LedgerErrorDetails;

  constructor(readonly code: LedgerErrorCode, message: string, details: LedgerErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerError';
    this.details = details;
  }

  /** The agent's latest sequence, on `stale_sequence`. */
  get latest(): number | null | undefined {
    return this.details.latest;
  }
}

export function isLedgerError(error: unknown, code?: LedgerErrorCode): error is LedgerError {
  return error instanceof LedgerError && (code === undefined || error.code === code);
}
