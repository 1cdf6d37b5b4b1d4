/**
 * The scale-out engines out of reach: a PostgreSQL connection refused, reset, terminated by the
 * server (a restart, a failover, an operator), a statement it stopped answering, or the object
 * store not answering. Nothing a client
 * sent is wrong, and the service is not broken: the request may be retried once the engine is back,
 * so it is `busy` (HTTP 503 + Retry-After), not an internal error. What the request had written is
 * either committed whole or not at all (one transaction); the words do not claim which.
 * Also `busy`, though the database was reached: a statement PostgreSQL cancelled because a lock
 * another request's long transaction holds was not granted within the pool's `lock_timeout`
 * (db/pg/connect-timeout.ts `pgTimeLimits`): its transaction was rolled back, nothing of it stays.
 * A statement cancelled past its `statement_timeout` while it ran (LINEAGE_DATABASE_READ_SECONDS)
 * is not `busy` but `database_timeout` (504, no Retry-After): a retry would run as long again.
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

/** The SQLSTATE of a statement PostgreSQL cancelled, if `error` (or a cause) is one: 57014 (query_canceled) or 55P03 (lock_not_available). */
function cancelled(error: unknown): '57014' | '55P03' | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code } = e as Error & { code?: unknown };
    if (code === '57014' || code === '55P03') return code;
  }
  return null;
}

/** What a request is told when a statement of it ran past LINEAGE_DATABASE_READ_SECONDS. */
export const DATABASE_TIMEOUT_WORDS = 'a database statement of this request ran past its time limit (LINEAGE_DATABASE_READ_SECONDS) and was cancelled; '
  + 'nothing of it was kept. Trying again will likely take as long: the server\'s operator can raise LINEAGE_DATABASE_READ_SECONDS';

/**
 * `busy` for an engine out of reach or a statement cancelled while it waited for a lock
 * (55P03: the pool's `lock_timeout`, db/pg/connect-timeout.ts `pgTimeLimits`); `database_timeout` for a
 * statement cancelled otherwise (57014: past the pool's `statement_timeout` while it ran, or by an
 * operator's pg_cancel_backend); null when `error` is none of these.
 */
export function unreachableStorageError(error: unknown): LedgerError | null {
  if (error instanceof LedgerError) return null;
  const code = cancelled(error);
  if (code === '55P03') {
    return new LedgerError('busy', 'the database cancelled a statement that waited too long for a lock another request or process holds; retry shortly', {}, { cause: error });
  }
  if (code === '57014') return new LedgerError('database_timeout', DATABASE_TIMEOUT_WORDS, {}, { cause: error });
  const what = unreachable(error);
  if (what === null) return null;
  return new LedgerError('busy', `the ${what} could not be reached; retry shortly`, {}, { cause: error });
}
