import { ServiceError } from './errors';
import type { ProtocolRequest } from './protocol-http';
import { echoInput } from '@/lib/core/echo';

/**
 * Reads a request body, refusing it with 413 as soon as it passes `maxBytes` — from the declared
 * Content-Length before reading anything, else while it arrives — so an oversized body is never
 * buffered whole.
 */
export async function readBodyCapped(req: ProtocolRequest, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw bodyTooLarge(maxBytes);
  return req.readBody(maxBytes);
}

/** The 413 of a body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): ServiceError {
  return new ServiceError('payload_too_large', `request body exceeds ${maxBytes} bytes`);
}

/** The media type of a request's Content-Type (parameters dropped, lower case); '' when there is none. */
function mediaType(req: ProtocolRequest): string {
  return (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function unsupportedType(expected: string, type: string): ServiceError {
  return new ServiceError('unsupported_media_type', `expected Content-Type ${expected}, got ${type === '' ? 'none' : echoInput(type)}`);
}

/** Binary uploads must be `application/octet-stream` (CONTRACT §1.1); anything else is a client bug. */
export function requireOctetStream(req: ProtocolRequest): void {
  const type = mediaType(req);
  if (type !== 'application/octet-stream') throw unsupportedType('application/octet-stream', type);
}

/** Reads a binary upload: content type checked, size capped, empty refused. */
export async function readArchiveUpload(req: ProtocolRequest, maxBytes: number): Promise<Uint8Array> {
  requireOctetStream(req);
  const bytes = await readBodyCapped(req, maxBytes);
  if (bytes.byteLength === 0) throw new ServiceError('bad_request', 'request body is empty; expected archive bytes');
  return bytes;
}

/** Reads and parses a JSON body (small, capped), sent as `application/json` (CONTRACT §1.1) like every client does. */
export async function readJsonBody(req: ProtocolRequest, maxBytes = 64 * 1024): Promise<unknown> {
  const type = mediaType(req);
  if (type !== 'application/json') throw unsupportedType('application/json', type);
  const bytes = await readBodyCapped(req, maxBytes);
  if (bytes.byteLength === 0) throw new ServiceError('bad_request', 'request body is empty; expected JSON');
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new ServiceError('bad_request', 'request body is not valid JSON');
  }
}
