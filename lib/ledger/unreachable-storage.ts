/**
 * The scale-out engines out of reach: a PostgreSQL connection refused, reset, terminated by the
 * server (a restart, a failover, an operator), a statement it stopped answering, or the object
 * store not answering. Nothing a client
 * sent is wrong, and the service is not broken: the request may be retried once the engine is back,
 * so it is `busy` (HTTP 503 + Retry-After), not an internal error. What the request had written is
 * either committed whole or not at all (one transaction); the words do not claim which.
 * Also `busy`, though the database was reached: a statement PostgreSQL cancelled — past its
 * `statement_timeout` (LINEAGE_DATABASE_READ_SECONDS, db/pg/connect-timeout.ts `pgTimeLimits`),
 * most often waiting for a lock another request's long transaction holds, or by an operator — or
 * a lock not granted within a `lock_timeout`: its transaction was rolled back, nothing of it stays.
 */
import { isConnectTimeout, isReadTimeout } from '@/db/pg/connect-timeout';
import { LedgerError } from './errors';

/** Node's socket failures, as `pg` and the S3 SDK pass them on. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/** `pg`'s own words for a connection that died (it gives these errors no code). */
const PG_CONNECTION_LOST = /^(Connection terminated( unexpectedly)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/;

function unreachable(error: unknown): 'database' | 'object store' | 'storage' | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, $metadata } = e as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
    // PostgreSQL SQLSTATE class 08 (connection exception), 57P01–57P03 (shut down, cannot connect now), 53300 (too many connections).
    if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === '53300')) return 'database';
    // Also a statement not answered within LINEAGE_DATABASE_READ_SECONDS (its connection dropped).
    if (PG_CONNECTION_LOST.test(e.message) || isConnectTimeout(e) || isReadTimeout(e)) return 'database';
    // The S3 SDK: a gateway answering 500/502/503/504 (radosgw restarting, SlowDown).
    if ($metadata && [500, 502, 503, 504].includes($metadata.httpStatusCode ?? 0)) return 'object store';
    if (typeof code === 'string' && NETWORK.has(code)) return $metadata ? 'object store' : 'storage';
    // The SDK's request handler: no connection, or no byte moving, within LINEAGE_S3_IDLE_SECONDS.
    if (e.name === 'TimeoutError' && $metadata) return 'object store';
  }
  return null;
}

/** SQLSTATE 57014 (query_canceled: statement_timeout, a cancel request) and 55P03 (lock_not_available: lock_timeout). */
const PG_CANCELLED = new Set(['57014', '55P03']);

function cancelled(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code } = e as Error & { code?: unknown };
    if (typeof code === 'string' && PG_CANCELLED.has(code)) return true;
  }
  return false;
}

/** `busy` for an engine out of reach or a statement the database cancelled, or null when `error` is not that. */
export function unreachableStorageError(error: unknown): LedgerError | null {
  if (error instanceof LedgerError) return null;
  if (cancelled(error)) {
    return new LedgerError('busy', 'the database cancelled a statement that waited or ran past its time limit; retry shortly', {}, { cause: error });
  }
  const what = unreachable(error);
  if (what === null) return null;
  return new LedgerError('busy', `the ${what} could not be reached; retry shortly`, {}, { cause: error });
}
