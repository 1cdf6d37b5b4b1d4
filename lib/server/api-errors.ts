/**
 * The one place where dashboard API failures become HTTP responses: a bad query string is a 400,
 * an unknown agent, record or sequence a 404, busy or the scale-out engines out of reach a 503, a
 * full disk a 507, a data directory that cannot be written a 503 (as the protocol answers them:
 * lib/server/errors.ts `storageFailureAnswer`), anything
 * else a 500 whose cause is logged, never returned. Route handlers throw; `apiRoute` answers.
 */
import { ZodError, type z } from 'zod';
import { LedgerError } from '@/lib/ledger/errors';
import { storageFailureAnswer } from './errors';
import { zodErrorInWords } from './issue-words';
import { echoInput } from '@/lib/core/echo';

export type ApiErrorCode = 'bad_request' | 'unauthorized' | 'not_found';

const STATUS: Record<ApiErrorCode, number> = { bad_request: 400, unauthorized: 401, not_found: 404 };

/** A failure the caller caused; `message` is returned as `{"error": message}`. */
export class ApiFailure extends Error {
  constructor(readonly code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiFailure';
  }

  get status(): number {
    return STATUS[this.code];
  }
}

export const notFound = (what: string): ApiFailure => new ApiFailure('not_found', `${what} not found`);
export const badRequest = (message: string): ApiFailure => new ApiFailure('bad_request', message);

/** `value`, or a 404 naming what was missing when it is null/undefined. */
export function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

const LEDGER_404 = new Set(['agent_not_found', 'never_synced', 'sequence_out_of_range']);

/** Turns any thrown value into a JSON error response. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiFailure) return Response.json({ error: error.message }, { status: error.status });
  if (error instanceof ZodError) return Response.json({ error: zodErrorInWords(error, error instanceof QueryError ? error.input : undefined) }, { status: 400 });
  if (error instanceof LedgerError) {
    if (LEDGER_404.has(error.code)) return Response.json({ error: error.message }, { status: 404 });
    if (error.code === 'invalid_input') return Response.json({ error: error.message }, { status: 400 });
    // Damaged stored data: said as such, naming the agent and sequence, never a bare "internal error".
    if (error.code === 'blob_corrupt' || error.code === 'blob_missing') {
      console.error(`[dashboard api] ${error.message}`);
      return Response.json({ error: error.message, code: 'blob_corrupt', agent_id: error.details.agentId ?? null, sequence: error.details.sequence ?? null }, { status: 500 });
    }
  }
  // Busy (an index rebuild, the database locked), PostgreSQL or the bucket out of reach (a restart, a
  // failover), a full disk, a data directory that cannot be written (a read that folds the history
  // index writes): said, as the protocol answers them.
  const storage = storageFailureAnswer(error, 'dashboard api');
  if (storage) return Response.json(storage.body, { status: storage.status, headers: storage.headers });
  if (isCodedError(error)) {
    const status = codeStatus(error.code);
    if (status) return Response.json({ error: error.message }, { status });
  }
  console.error('[dashboard api] internal error:', error);
  return Response.json({ error: 'internal error' }, { status: 500 });
}

/** Errors from lib/history carry a string `code` such as `not_found:agent` or `bad_request`. */
function isCodedError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function codeStatus(code: string): number | null {
  const kind = code.split(':')[0];
  if (kind === 'not_found' || kind === 'agent_not_found' || kind === 'record_not_found') return 404;
  if (kind === 'bad_request' || kind === 'invalid_input' || kind === 'invalid_query') return 400;
  if (kind === 'unauthorized') return 401;
  return null;
}

/**
 * A 400 when a query parameter is given more than once (`?seq=1&seq=2`): which value was meant
 * cannot be told, and taking the first or the last silently answered another question.
 */
export function rejectRepeatedParams(params: URLSearchParams): void {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) throw badRequest(`The parameter “${echoInput(name)}” is given more than once; give it once.`);
    seen.add(name);
  }
}

/** Parses a request's query string with `schema` (→ 400 on failure, or on a parameter given twice). */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const searchParams = new URL(request.url).searchParams;
  rejectRepeatedParams(searchParams);
  const params = Object.fromEntries(searchParams);
  const result = schema.safeParse(params);
  if (!result.success) throw new QueryError(result.error.issues, params);
  return result.data;
}

/** A failed query-string parse with the values it read, so the 400 can say how long a value was. */
class QueryError extends ZodError {
  constructor(issues: ZodError['issues'], readonly input: Record<string, string>) {
    super(issues);
  }
}

type Handler<C> = (request: Request, context: C) => Promise<Response> | Response;

/**
 * Wraps a route handler so every failure goes through `errorResponse`, and every answer that does
 * not say otherwise is `Cache-Control: private, no-store`: it is one tenant's data, asked for with a
 * session cookie, which a shared cache (a caching proxy in front of the server) may otherwise keep
 * and hand to the next tenant asking the same URL. A route that says more (a pinned sequence's
 * `private, max-age=…, immutable`) keeps its own.
 */
export function apiRoute<C>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    let response: Response;
    try {
      response = await handler(request, context);
    } catch (error) {
      response = errorResponse(error);
    }
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'private, no-store');
    return response;
  };
}
