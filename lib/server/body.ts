import { ServiceError } from './errors';

/**
 * Reads a request body, refusing it with 413 as soon as it passes `maxBytes` —
 * from the declared Content-Length before reading anything, else while streaming —
 * so an oversized body is never buffered whole.
 */
export async function readBodyCapped(req: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new ServiceError('payload_too_large', `request body exceeds ${maxBytes} bytes`);
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Binary uploads must be `application/octet-stream` (CONTRACT §1.1); anything else is a client bug. */
export function requireOctetStream(req: Request): void {
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/octet-stream') {
    throw new ServiceError(
      'unsupported_media_type',
      `expected Content-Type application/octet-stream, got ${type === '' ? 'none' : type}`,
    );
  }
}

/** Reads a binary upload: content type checked, size capped, empty refused. */
export async function readArchiveUpload(req: Request, maxBytes: number): Promise<Uint8Array> {
  requireOctetStream(req);
  const bytes = await readBodyCapped(req, maxBytes);
  if (bytes.byteLength === 0) throw new ServiceError('bad_request', 'request body is empty; expected archive bytes');
  return bytes;
}

/** Reads and parses a JSON body (small, capped). */
export async function readJsonBody(req: Request, maxBytes = 64 * 1024): Promise<unknown> {
  const bytes = await readBodyCapped(req, maxBytes);
  if (bytes.byteLength === 0) throw new ServiceError('bad_request', 'request body is empty; expected JSON');
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new ServiceError('bad_request', 'request body is not valid JSON');
  }
}
