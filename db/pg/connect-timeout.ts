/**
 * How long PostgreSQL may take: to make a connection (the URL's `connect_timeout`, as libpq reads
 * it) and to answer a statement (`LINEAGE_DATABASE_READ_SECONDS`). Its own module so that the
 * settings' checks (lib/ledger/scale-out-config.ts) need not load `pg`.
 */

/** How long a connection to PostgreSQL may take to be made when the URL does not say (ms). */
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a statement may take before PostgreSQL cancels it, or, with no answer at all a little
 * longer, before it fails and its connection is dropped (ms; `pgTimeLimits`), unless
 * `LINEAGE_DATABASE_READ_SECONDS` says otherwise. Without it a database that stopped
 * answering mid-query (a hung server, a proxy whose backend died, a partition) held the request and
 * its pooled connection for ever. Generous: the longest statement measured, the index insert of a
 * 63 MB snapshot with a 60 MiB raw file, took 4 s on a local server (a rebuild's longest 2.6 s);
 * the largest upload (256 MiB) over a slow link stays well inside 5 minutes. Migrations are not
 * limited (their own connection: an index build may take long).
 */
export const DEFAULT_PG_READ_TIMEOUT_MS = 300_000;

/**
 * A whole-seconds parameter `name` of a database URL's query: its value in ms (0 for no limit),
 * `defaultMs` when absent, or why it cannot be taken. The one reading of the settings' check
 * (scale-out-config.ts `databaseUrlProblem`) and of the driver's setup, decoded as the driver
 * decodes its URL (`%33` is 3, `connect%5Ftimeout` is the parameter); given twice, which one was
 * meant cannot be told (libpq takes the last, a first-match reading the first), so it is refused.
 */
export function urlSeconds(url: string, name: string, defaultMs: number): { ms: number } | { problem: string } {
  const values = new URLSearchParams(/\?([^#]*)/.exec(url)?.[1] ?? '').getAll(name);
  if (values.length === 0) return { ms: defaultMs };
  if (values.length > 1) return { problem: `gives ${name} ${values.length} times: give it once` };
  const text = values[0]!;
  if (!/^\d{1,5}$/.test(text)) {
    return { problem: `has a ${name} that is not a whole number of seconds ("${text.slice(0, 20)}"; 0 waits for ever, the default is ${defaultMs / 1000})` };
  }
  return { ms: Number(text) * 1000 };
}

/**
 * The time limits this service sets on every pooled connection itself, from
 * `LINEAGE_DATABASE_READ_SECONDS` (`pgTimeLimits`): given in the URL as well, the driver took the
 * URL's over ours without a word (pg-connection-string copies every query parameter into the
 * connection's settings, the URL's last) — `query_timeout=0` turned off the guard against a silent
 * server, a `statement_timeout` longer than our client-side limit made a statement's cancel look
 * like a silent server (its connection dropped), and one in `options` also limited the migrations
 * (which have no limit: an index build may take long). So a URL giving one is refused, in words.
 */
const SERVICE_TIME_LIMITS = ['query_timeout', 'statement_timeout', 'lock_timeout'] as const;

/**
 * PostgreSQL's other session time limits, which end or cancel work that lineage leaves waiting on
 * purpose: a transaction idle between statements while its blobs are read from the bucket (an index
 * rebuild's), a connection idle while it holds a lock for a task using the pool (the rebuild's
 * advisory lock: its session ended, the lock is gone and a second rebuild may start), a migration's
 * transaction (an index build may take long; `transaction_timeout` is PostgreSQL 17's). Refused as
 * the ones above: `idle_in_transaction_session_timeout` as a URL parameter is sent by the driver,
 * the others only take effect in `options`, but a URL naming one means it, and it would not be taken.
 */
const SESSION_TIME_LIMITS = ['idle_in_transaction_session_timeout', 'idle_session_timeout', 'transaction_timeout'] as const;

/** `-c statement_timeout=…`, `-cstatement_timeout=…`, `--lock-timeout=…`: PostgreSQL's command-line forms in `options` and PGOPTIONS. */
const OPTIONS_TIME_LIMIT = /(?:^|\s)(?:-c\s*|--)(statement|lock|idle[-_]in[-_]transaction[-_]session|idle[-_]session|transaction)[-_]timeout\s*=/i;

/** The time limit (of `SERVICE_TIME_LIMITS` or `SESSION_TIME_LIMITS`) that `options` (PostgreSQL's command-line form) sets, or null. */
export function optionsTimeLimit(options: string): string | null {
  const set = OPTIONS_TIME_LIMIT.exec(options);
  return set ? `${set[1]!.toLowerCase().replaceAll('-', '_')}_timeout` : null;
}

/** Why a setting `name` given in `where` ("the URL", "PGOPTIONS") cannot be taken. */
function timeLimitProblem(name: string, where: string): string {
  if ((SERVICE_TIME_LIMITS as readonly string[]).includes(name)) {
    return `lineage sets it on every connection from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from ${where}`;
  }
  return 'PostgreSQL would end lineage\'s connections or transactions that wait by design (an index rebuild holds its lock on an idle connection and reads blobs '
    + `inside its transaction; a migration may run long): lineage limits each statement itself, from LINEAGE_DATABASE_READ_SECONDS (see the README, Scale-out); remove it from ${where}`;
}

/**
 * The one reading of a database URL's time settings, for the settings' check (scale-out-config.ts
 * `databaseUrlProblem`) and the driver's setup (`connectTimeoutMs`): `connect_timeout` in ms
 * (`urlSeconds`), or why the URL cannot be taken — its `connect_timeout`, or a time limit of
 * `SERVICE_TIME_LIMITS` or `SESSION_TIME_LIMITS`, as a parameter or in `options`.
 */
export function urlTimeSettings(url: string): { connectMs: number } | { problem: string } {
  const query = new URLSearchParams(/\?([^#]*)/.exec(url)?.[1] ?? '');
  for (const name of [...SERVICE_TIME_LIMITS, ...SESSION_TIME_LIMITS]) {
    if (query.has(name)) return { problem: `sets ${name}: ${timeLimitProblem(name, 'the URL')}` };
  }
  for (const options of query.getAll('options')) {
    const name = optionsTimeLimit(options);
    if (name) return { problem: `sets ${name} in its options: ${timeLimitProblem(name, 'the URL')}` };
  }
  const connect = urlSeconds(url, 'connect_timeout', DEFAULT_PG_CONNECT_TIMEOUT_MS);
  return 'problem' in connect ? connect : { connectMs: connect.ms };
}

/**
 * The environment's `PGOPTIONS` (which `pg` sends as every connection's `options` when the URL has
 * none) setting a time limit, in words (`PGOPTIONS sets …`), or null. Treated as the URL's: the
 * pool's `statement_timeout` overrode its `statement_timeout` but not its `lock_timeout`, nor any
 * with LINEAGE_DATABASE_READ_SECONDS=0, and it limited the migrations (which now set their own,
 * client.ts `migratePg`). Checked at start (scale-out-config.ts) and by `openPgDatabase`, same words.
 */
export function pgOptionsProblem(env: Record<string, string | undefined>): string | null {
  const name = optionsTimeLimit(env.PGOPTIONS ?? '');
  return name ? `PGOPTIONS sets ${name}: ${timeLimitProblem(name, 'PGOPTIONS')}` : null;
}

/**
 * The URL's `connect_timeout` (libpq's parameter: whole seconds to wait for a connection, 0 for
 * no limit) in ms, else `DEFAULT_PG_CONNECT_TIMEOUT_MS`. `pg` itself waits forever: a database host
 * that accepts connections and never answers (a hung server, a proxy with nothing behind it) held
 * `lineage serve`, `migrate` or a sync without a word. The URL was checked (scale-out-config.ts
 * `databaseUrlProblem`, `urlTimeSettings`); a URL that was not is refused here in the same words.
 */
export function connectTimeoutMs(url: string): number {
  const settings = urlTimeSettings(url);
  if ('problem' in settings) throw new Error(`the database URL ${settings.problem}`);
  return settings.connectMs;
}

/**
 * How much longer than the server's own limit the client waits before it takes the database for
 * silent (ms): time for PostgreSQL's cancel to reach us. Below 5 s, the limit itself is added, but
 * never less than `PG_SILENCE_MIN_MS`.
 */
export const PG_SILENCE_MARGIN_MS = 5_000;
/**
 * The least margin: a read limit under a second (none a setting gives, LINEAGE_DATABASE_READ_SECONDS
 * takes whole seconds; db/pg/lock-wait.test.ts uses 250 ms) left PostgreSQL's cancel 250 ms to reach
 * us, and on a loaded 2-core machine it took longer: a slow statement was taken for a silent server
 * (503 busy, "Query read timeout") instead of a time limit (504 database_timeout).
 */
export const PG_SILENCE_MIN_MS = 1_000;

/**
 * A pooled connection's limits for a read limit of `readMs` (0: none). PostgreSQL's own
 * `statement_timeout` (sent in the connection's startup packet) cancels a statement that has not
 * finished within `readMs` (SQLSTATE 57014): a statement merely slow, which a retry would only
 * repeat — answered `database_timeout` (unreachable-storage.ts). Its `lock_timeout`, a tenth shorter
 * (`lockWaitMs`), cancels a statement that waits that long for one lock another transaction holds (a
 * long ingest, a rebuild, a confirm of the same upload; SQLSTATE 55P03) before the statement's own
 * limit can: that passes when the holder commits, so the request is answered `busy` with
 * Retry-After. Either way its transaction is rolled back and the connection stays. `pg`'s
 * client-side `query_timeout`, a little longer, stays the last guard for a server that stopped
 * answering altogether (the connection is then dropped, client.ts).
 */
export function pgTimeLimits(readMs: number): { statement_timeout?: number; lock_timeout?: number; query_timeout?: number } {
  if (readMs <= 0) return {};
  return { statement_timeout: readMs, lock_timeout: lockWaitMs(readMs), query_timeout: readMs + Math.min(Math.max(readMs, PG_SILENCE_MIN_MS), PG_SILENCE_MARGIN_MS) };
}

/**
 * How long one lock may be waited for under a read limit of `readMs`: 9/10 of it, so a statement
 * that waits from its start (or after running for up to a tenth of the limit) is told a lock wait.
 * Below the read limit, not equal: both timers would be due together, and the statement's, started
 * first, would fire first.
 */
export function lockWaitMs(readMs: number): number {
  return Math.max(1, Math.floor(readMs * 0.9));
}

/** `pg`'s error for a statement not answered within its `query_timeout` (the server gone silent). */
export function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
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

/**
 * How PostgreSQL cancelled a statement of lineage's own connections (SQLSTATE 57014, query_canceled,
 * both ways): `statement_timeout` — it had run at least the connection's `statement_timeout`, which
 * lineage sets itself (`pgTimeLimits`); `cancel_request` — before that, so by a cancel request
 * (an operator's pg_cancel_backend, a SIGINT to the backend). Told by the statement's elapsed time,
 * not by the server's words, which are in its `lc_messages` language ("due to user request",
 * "wegen Benutzeraufforderung", "à la demande de l'utilisateur"); the other fields of the error
 * (routine, file) are the same for both. Recorded by db/pg/client.ts `CancelTimingClient` as the
 * error arrives; read by lib/ledger/unreachable-storage.ts.
 */
export type StatementCancel = 'statement_timeout' | 'cancel_request';

const statementCancels = new WeakMap<object, StatementCancel>();

/**
 * Which cancel a 57014 error that a statement of `limitMs` (the connection's statement_timeout, 0:
 * none) got after `elapsedMs` is: the server's timer starts once it has the statement, after the
 * client sent it, and never fires before the limit, so a statement cancelled sooner was cancelled by request.
 */
export function statementCancel(elapsedMs: number, limitMs: number): StatementCancel {
  return limitMs > 0 && elapsedMs >= limitMs ? 'statement_timeout' : 'cancel_request';
}

/** Records how a 57014 `error` of lineage's own connection came (`statementCancel`). */
export function recordStatementCancel(error: object, cancel: StatementCancel): void {
  statementCancels.set(error, cancel);
}

/** How the 57014 `error` came, when lineage's own connection recorded it; else null. */
export function recordedStatementCancel(error: object): StatementCancel | null {
  return statementCancels.get(error) ?? null;
}
