/**
 * How long a connection to PostgreSQL may take to be made: the URL's `connect_timeout`, as libpq
 * reads it. Its own module so that the settings' checks (lib/ledger/scale-out-config.ts) need not
 * load `pg`.
 */

/** How long a connection to PostgreSQL may take to be made when the URL does not say (ms). */
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The URL's `connect_timeout` (libpq's parameter: whole seconds to wait for a connection, 0 for
 * no limit) in ms, else `DEFAULT_PG_CONNECT_TIMEOUT_MS`. `pg` itself waits forever: a database host
 * that accepts connections and never answers (a hung server, a proxy with nothing behind it) held
 * `lineage serve`, `migrate` or a sync without a word. The value was checked with the URL
 * (scale-out-config.ts `databaseUrlProblem`).
 */
export function connectTimeoutMs(url: string): number {
  const text = /[?&]connect_timeout=([^&#]*)/.exec(url)?.[1];
  return text !== undefined && /^\d{1,5}$/.test(text) ? Number(text) * 1000 : DEFAULT_PG_CONNECT_TIMEOUT_MS;
}

/** `pg`'s error for a connection not made within its limit (the stream destroyed with these words). */
export function isConnectTimeout(error: unknown): boolean {
  return error instanceof Error && (error.message === 'timeout expired' || error.message === 'Connection terminated due to connection timeout');
}

/** `error` in words a user can act on when it is a connection not made within `ms`; else itself. */
export function connectError(error: unknown, ms: number): unknown {
  if (!isConnectTimeout(error)) return error;
  return new Error(`PostgreSQL did not answer within ${ms / 1000} s (connect_timeout=<seconds> in the URL waits longer)`, { cause: error });
}
