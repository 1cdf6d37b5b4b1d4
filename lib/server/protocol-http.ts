/**
 * The protocol's own request and response shapes. Handlers see only these: a request whose body is
 * read once and capped, a response that is a status, headers and bytes. The Node server adapts
 * `IncomingMessage` / `ServerResponse` to them directly (node-bridge.ts), without building Fetch
 * `Request` / `Response` objects and web streams for every upload.
 */

/** What a handler needs of a request. */
export interface ProtocolRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The whole body, or a 413 `ServiceError` as soon as it passes `maxBytes`. Read at most once. */
  readBody(maxBytes: number): Promise<Uint8Array>;
}

/** A handler's answer. */
export interface ProtocolResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

/** A JSON response with the protocol's content type. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): ProtocolResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(body), 'utf8') };
}

/** Raw bytes (downloads). */
export function bytesResponse(bytes: Uint8Array, contentType = 'application/octet-stream'): ProtocolResponse {
  return { status: 200, headers: { 'content-type': contentType }, body: bytes };
}

/** A status without a body. */
export function emptyResponse(status: number): ProtocolResponse {
  return { status, headers: {}, body: null };
}
