/** Error codes a ledger operation can fail with; the HTTP layer maps them to statuses. */
export type LedgerErrorCode =
  | 'stale_sequence'
  | 'agent_not_found'
  | 'agent_exists'
  /**
   * `DELETE /agents/{id}?if_empty=true` on an agent that holds entries by the time the delete runs
   * (another machine's first snapshot stored meanwhile): 409, nothing deleted.
   */
  | 'agent_not_empty'
  | 'agent_mismatch'
  | 'base_mismatch'
  /**
   * A delta whose base sequence is the latest, but whose head there is a full snapshot stored after
   * the base the delta was built on (ingest-base.ts): 409 + `X-Latest-Sequence`, as a stale base.
   */
  | 'base_superseded'
  | 'no_snapshot'
  | 'never_synced'
  | 'sequence_out_of_range'
  | 'bad_archive'
  | 'invalid_input'
  /**
   * An upload over its size limit found at confirm (a presigned PUT straight to S3 cannot be
   * capped): 413, as a body over the limit is answered while it is read (lib/server/body.ts).
   */
  | 'payload_too_large'
  | 'blob_missing'
  | 'blob_corrupt'
  /** A write-once blob key already holds other bytes (S3BlobStore): nothing was overwritten. */
  | 'blob_conflict'
  | 'busy'
  /**
   * A database statement PostgreSQL cancelled past LINEAGE_DATABASE_READ_SECONDS while it ran (not
   * waiting for a lock: that is `busy`): the same request would take as long again. 504, no Retry-After.
   */
  | 'database_timeout'
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
  /**
   * `base_superseded`: how the delta was told apart from the head (its `sync.base_timestamp` against
   * the snapshot's `created_at`, or that snapshot stored while it was ingested).
   */
  reason?: string;
  /** `base_superseded`: the kind of the entry at the base sequence the delta was not built on. */
  head?: 'snapshot' | 'delta';
}

/** A ledger failure with a stable `code` and a message that says what was wrong. */
/** The brand every LedgerError carries, shared by every copy of this module in the process. */
const BRAND = Symbol.for('alf-lineage.LedgerError');

export class LedgerError extends Error {
  readonly details: LedgerErrorDetails;

  constructor(readonly code: LedgerErrorCode, message: string, details: LedgerErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerError';
    this.details = details;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * `instanceof` by brand: under `lineage serve` the dashboard's route handlers (Next's bundle) call
   * the storage the server opened (the server's own copy of this module), and its refusals must
   * still map to their 4xx there.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass (BlobConflictError) keeps the plain prototype check.
    if (this !== LedgerError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** The agent's latest sequence, on `stale_sequence`. */
  get latest(): number | null | undefined {
    return this.details.latest;
  }
}

export function isLedgerError(error: unknown, code?: LedgerErrorCode): error is LedgerError {
  return error instanceof LedgerError && (code === undefined || error.code === code);
}
