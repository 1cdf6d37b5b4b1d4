/** A protocol call that did not return its expected status. */
export class AlfApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly serverMessage: string,
    /** A 503's `Retry-After` in whole seconds (RFC 9110 §10.2.3's delay form), or null: none, or a date. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(describe(operation, status, serverMessage));
    this.name = 'AlfApiError';
  }
}

function describe(operation: string, status: number, serverMessage: string): string {
  if (status === 404) return `${operation}: not found (HTTP 404)`;
  if (status === 401) return `${operation}: authentication failed (HTTP 401). Check your API key`;
  return `${operation} failed (HTTP ${status}): ${serverMessage}`;
}

/** POST /agents answered 409 `agent_id_taken`: another API key holds this agent id. */
export class AgentIdTakenError extends AlfApiError {
  constructor(serverMessage: string) {
    super('register agent', 409, serverMessage);
    this.name = 'AgentIdTakenError';
  }
}

/** The server refused a delta because its base is stale (409 + `X-Latest-Sequence`). */
export class SyncConflictError extends Error {
  constructor(
    /** The server's latest sequence, or null when the header was missing. */
    readonly latest: number | null,
    readonly localBase: number,
  ) {
    super(
      latest === null
        ? `Sequence conflict: the server rejected base sequence ${localBase}. Pull the latest changes first.`
        : `Sequence conflict: your local state is at sequence ${localBase} but the server is at ${latest}. Pull the latest changes first.`,
    );
    this.name = 'SyncConflictError';
  }
}
