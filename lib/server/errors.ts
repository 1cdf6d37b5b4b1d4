import { ArchiveError } from '@/lib/core/archive/types';
import path from 'node:path';
import { LedgerError, type LedgerErrorCode } from '@/lib/ledger/errors';
import { storageError } from '@/lib/ledger/storage-errors';
import { unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { jsonResponse, type ProtocolResponse } from './protocol-http';

/** Every error the protocol service turns into a 4xx; the status is fixed by the code. */
export const SERVICE_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503,
} as const;

export type ServiceErrorCode = keyof typeof SERVICE_ERROR_STATUS;

/** A request the service refuses; `message` is returned to the client as `{"error": message}`. */
export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  get status(): number {
    return SERVICE_ERROR_STATUS[this.code];
  }
}

export { jsonResponse };

const ARCHIVE_STATUS: Record<ArchiveError['code'], number> = {
  not_a_zip: 400,
  unsafe_path: 400,
  too_many_entries: 413,
  too_large: 413,
  missing_manifest: 400,
  bad_manifest: 400,
  bad_record: 400,
  duplicate_record_id: 400,
  line_too_long: 413,
  duplicate_entry: 400,
};

const LEDGER_STATUS: Record<LedgerErrorCode, number> = {
  stale_sequence: 409,
  agent_not_found: 404,
  agent_exists: 409,
  // A conditional delete (if_empty) of an agent that holds entries by then: nothing was deleted.
  agent_not_empty: 409,
  agent_mismatch: 400,
  base_mismatch: 400,
  // A base the head replaced at its sequence (a snapshot stored there since): a stale base, CONTRACT §1.2 #6's 409.
  base_superseded: 409,
  no_snapshot: 409,
  never_synced: 404,
  sequence_out_of_range: 400,
  bad_archive: 400,
  invalid_input: 400,
  // An upload over LINEAGE_MAX_UPLOAD_BYTES found at confirm: the 413 of a body over it (body.ts `payload_too_large`).
  payload_too_large: 413,
  blob_missing: 500,
  blob_corrupt: 500,
  // The upload's blob key is taken by other bytes: the stored state conflicts with this write (nothing was replaced).
  blob_conflict: 409,
  busy: 503,
  // A statement slower than LINEAGE_DATABASE_READ_SECONDS: the database (the gateway's upstream) did not answer in time.
  database_timeout: 504,
  disk_full: 507,
  read_only: 503,
};

/** Seconds a client is told to wait before retrying an upload refused while the index is rebuilt. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * The answer to a `busy` LedgerError (an index rebuild, a lock held, the scale-out engines out of
 * reach: lib/ledger/unreachable-storage.ts), the same on the protocol and the dashboard API.
 */
export function busyAnswer(err: LedgerError): { status: number; body: { error: string; code: 'busy' }; headers: Record<string, string> } {
  return { status: LEDGER_STATUS.busy, body: { error: err.message, code: 'busy' }, headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) } };
}

/**
 * The answer to a storage failure a user can act on, the same on the protocol and the dashboard API:
 * `busy` (busyAnswer), a full disk (`disk_full`, 507), a data directory that cannot be written
 * (`read_only`, 503) or a database statement slower than its limit (`database_timeout`, 504, no Retry-After) — as a LedgerError, or as the file system's or SQLite's own error
 * (storage-errors.ts), or the scale-out engines out of reach (unreachable-storage.ts). Null for
 * anything else. What it says is logged (`who`: the log line's prefix).
 */
export function storageFailureAnswer(err: unknown, who: string): { status: number; body: { error: string; code: string }; headers?: Record<string, string> } | null {
  const unreachable = err instanceof LedgerError ? null : unreachableStorageError(err);
  if (unreachable) console.error(`[${who}] ${unreachable.message}:`, err instanceof Error ? err.message : err);
  const ledger = err instanceof LedgerError ? err
    : unreachable ?? storageError(err, typeof (err as { path?: unknown } | null)?.path === 'string' ? path.dirname((err as { path: string }).path) : null);
  if (ledger?.code === 'busy') return busyAnswer(ledger);
  if (ledger?.code === 'disk_full' || ledger?.code === 'read_only' || ledger?.code === 'database_timeout') {
    console.error(`[${who}] ${ledger.message}`);
    return { status: LEDGER_STATUS[ledger.code]!, body: { error: ledger.message, code: ledger.code } };
  }
  return null;
}

function ledgerErrorResponse(err: LedgerError): ProtocolResponse {
  const status = LEDGER_STATUS[err.code] ?? 500;
  const storage = storageFailureAnswer(err, 'lineage serve');
  if (storage) return jsonResponse(storage.body, storage.status, storage.headers);
  if (err.code === 'blob_conflict') {
    console.error(`[lineage serve] ${err.message}`);
    return jsonResponse({ error: err.message, code: err.code }, status);
  }
  if (err.code === 'blob_corrupt' || err.code === 'blob_missing') {
    console.error(`[lineage serve] ${err.message}`);
    return jsonResponse({ error: err.message, code: 'blob_corrupt', agent_id: err.details.agentId ?? null, sequence: err.details.sequence ?? null }, status);
  }
  if (status >= 500) {
    console.error('[lineage serve] ledger error:', err);
    return jsonResponse({ error: status === 503 ? 'service busy, retry shortly' : 'internal error' }, status);
  }
  if (err.code === 'bad_archive' && err.cause instanceof ArchiveError) return errorToResponse(err.cause);
  if (err.code === 'stale_sequence' || err.code === 'base_superseded') {
    // The reference CLI reads only this header on 409 (CONTRACT §1.2 #6). A superseded base says
    // the latest is the delta's own base sequence (lineage's client tells it apart by that; the body says its code too).
    const latest = err.latest ?? 0;
    return jsonResponse({ error: err.message, latest_sequence: latest, ...(err.code === 'base_superseded' ? { code: err.code } : {}) }, status, { 'x-latest-sequence': String(latest) });
  }
  return jsonResponse({ error: err.message }, status);
}

/**
 * The one place where errors become HTTP responses: typed errors → 4xx with their
 * message; anything else → 500 with the cause logged to stderr, never returned.
 */
export function errorToResponse(err: unknown): ProtocolResponse {
  if (err instanceof ServiceError) return jsonResponse({ error: err.message }, err.status, err.headers);
  if (err instanceof ArchiveError) {
    return jsonResponse({ error: `invalid archive: ${err.message}` }, ARCHIVE_STATUS[err.code] ?? 400);
  }
  if (err instanceof LedgerError) return ledgerErrorResponse(err);
  const storage = storageFailureAnswer(err, 'lineage serve');
  if (storage) return jsonResponse(storage.body, storage.status, storage.headers);
  console.error('[lineage serve] internal error:', err);
  return jsonResponse({ error: 'internal error' }, 500);
}
