/**
 * The scale-out engines out of reach: a PostgreSQL connection refused, reset, terminated by the
 * server (a restart, a failover, an operator, an idle or idle-in-transaction session timeout), a statement it stopped answering, or the object
 * store not answering. Nothing a client
 * sent is wrong, and the service is not broken: the request may be retried once the engine is back,
 * so it is `busy` (HTTP 503 + Retry-After), not an internal error. What the request had written is
 * either committed whole or not at all (one transaction); the words do not claim which.
 * Also `busy`, though the database was reached: a statement PostgreSQL cancelled because a lock
 * another request's long transaction holds was not granted within the pool's `lock_timeout`
 * (db/pg/connect-timeout.ts `pgTimeLimits`): its transaction was rolled back, nothing of it stays.
 * Also `busy`: a statement an operator cancelled (pg_cancel_backend: 57014 "due to user request").
 * A statement cancelled past its `statement_timeout` while it ran (LINEAGE_DATABASE_READ_SECONDS)
 * is not `busy` but `database_timeout` (504, no Retry-After): a retry would run as long again. The
 * two 57014s are told apart by how long the statement ran against its connection's limit, recorded
 * by the connection (db/pg/client.ts `CancelTimingClient`), not by the server's words, which are in
 * its `lc_messages` language.
 * The CLI gives the same codes in its own words and hints (lib/cli/output.ts `databaseFailure`).
 */
import { DEFAULT_PG_READ_TIMEOUT_MS, isConnectTimeout, isReadTimeout, recordedStatementCancel } from '@/db/pg/connect-timeout';
import { LedgerError } from './errors';

/** Node's socket failures, as `pg` and the S3 SDK pass them on. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/** `pg`'s own words for a connection that died (it gives these errors no code). */
const PG_CONNECTION_LOST = /^(Connection terminated( unexpectedly)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/;

function unreachable(error: unknown): 'database' | 'object store' | 'storage' | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, $metadata } = e as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
    // PostgreSQL SQLSTATE class 08 (connection exception), 57P01–57P03 (an operator's pg_terminate_backend or a shutdown,
    // a crash's restart, cannot connect now while starting), 57P05 (the session ended by the database's or role's
    // idle_session_timeout), 25P03 (the session ended by idle_in_transaction_session_timeout: its transaction rolled back;
    // the pool's connections turn both off, db/pg/client.ts `poolUnlimitSql`, so another session's or one that set its own), 53300 (too many
    // connections). Not 57P04: a dropped database does not come back by itself.
    if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1235]$/.test(code) || code === '25P03' || code === '53300')) return 'database';
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

/**
 * PostgreSQL's English words for a statement cancelled by request (pg_cancel_backend), not past its
 * statement_timeout (both 57014). Read only for an error no connection of lineage's timed
 * (db/pg/client.ts `CancelTimingClient` records which it was, whatever the server's language).
 */
const CANCELLED_BY_USER = /due to user request/;

/**
 * How PostgreSQL cancelled a statement, if `error` (or a cause) is one: 55P03 (lock_not_available), 57014
 * (query_canceled) past its statement_timeout, or 57014 by a cancel request such as an operator's
 * pg_cancel_backend (`operator`), as the connection that ran it recorded (`recordedStatementCancel`).
 */
function cancelled(error: unknown): '57014' | '55P03' | 'operator' | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code } = e as Error & { code?: unknown };
    if (code === '57014') {
      const recorded = recordedStatementCancel(e);
      if (recorded !== null) return recorded === 'cancel_request' ? 'operator' : '57014';
      return CANCELLED_BY_USER.test(e.message) ? 'operator' : '57014';
    }
    if (code === '55P03') return code;
  }
  return null;
}

/** What a request is told when a statement of it ran past LINEAGE_DATABASE_READ_SECONDS. */
export const DATABASE_TIMEOUT_WORDS = 'a database statement of this request ran past its time limit (LINEAGE_DATABASE_READ_SECONDS) and was cancelled; '
  + 'nothing of it was kept. Trying again will likely take as long: the server\'s operator can raise LINEAGE_DATABASE_READ_SECONDS';

/**
 * What a CLI command (not a served request) is told when its statement ran past its limit: the
 * limit it ran with (`LINEAGE_DATABASE_READ_SECONDS`, checked when its storage was opened) and what to do.
 */
export function commandTimeoutWords(env: Record<string, string | undefined> = process.env): { error: string; hint: string } {
  const seconds = env.LINEAGE_DATABASE_READ_SECONDS ? Number(env.LINEAGE_DATABASE_READ_SECONDS) : DEFAULT_PG_READ_TIMEOUT_MS / 1000;
  return {
    error: `a database statement of this command ran past its time limit (LINEAGE_DATABASE_READ_SECONDS=${seconds}) and was cancelled; what its transaction wrote was rolled back`,
    hint: 'run the same command again with a longer limit for it, e.g. LINEAGE_DATABASE_READ_SECONDS=3600 lineage … (0: no limit); the servers keep their own',
  };
}

/** Whether `error` is the database or the object store out of reach (not a statement PostgreSQL cancelled). */
export function storageOutOfReach(error: unknown): boolean {
  return cancelled(error) === null && unreachable(error) !== null;
}

/**
 * `busy` for an engine out of reach or a statement cancelled while it waited for a lock
 * (55P03: the pool's `lock_timeout`, db/pg/connect-timeout.ts `pgTimeLimits`) or by an operator's
 * pg_cancel_backend; `database_timeout` for a statement cancelled past the pool's `statement_timeout`
 * while it ran (57014); null when `error` is none of these.
 */
export function unreachableStorageError(error: unknown): LedgerError | null {
  if (error instanceof LedgerError) return null;
  const code = cancelled(error);
  if (code === '55P03') {
    return new LedgerError('busy', 'the database cancelled a statement that waited too long for a lock another request or process holds; retry shortly', {}, { cause: error });
  }
  if (code === 'operator') {
    return new LedgerError('busy', 'an operator cancelled a database statement (pg_cancel_backend); what its transaction wrote was rolled back; retry shortly', {}, { cause: error });
  }
  if (code === '57014') return new LedgerError('database_timeout', DATABASE_TIMEOUT_WORDS, {}, { cause: error });
  const what = unreachable(error);
  if (what === null) return null;
  return new LedgerError('busy', `the ${what} could not be reached; retry shortly`, {}, { cause: error });
}
