import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A Fetch `Request` over a Node request; the body streams (never pre-buffered). */
export function toFetchRequest(req: IncomingMessage): Request {
  const host = req.headers.host ?? '127.0.0.1';
  const url = new URL(req.url ?? '/', `http://${/^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : '127.0.0.1'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch needs `duplex` to accept a streaming body.
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Writes a Fetch `Response` to a Node response. When the request body was not read
 * to the end (e.g. a 413), the connection is closed rather than drained.
 */
export async function sendFetchResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!req.complete && req.method !== 'GET' && req.method !== 'HEAD') headers.connection = 'close';
  res.writeHead(response.status, headers);
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
}

/**
 * Protocol or dashboard. `/v1/**` is always protocol. `/agents/**` is shared with the
 * dashboard page `/agents/[id]`: a request with an Authorization header is protocol; a
 * browser navigation (Accept text/html) or a Next.js client navigation (RSC headers or
 * `_rsc` query) is the dashboard's; anything else is protocol (and gets a 401 JSON).
 */
export function isProtocolRequest(req: IncomingMessage): boolean {
  const [pathname = '/', query = ''] = (req.url ?? '/').split('?');
  if (pathname.startsWith('/v1/') || pathname === '/v1') return true;
  if (pathname !== '/agents' && !pathname.startsWith('/agents/')) return false;
  if (req.headers.authorization) return true;
  const nextNavigation =
    req.headers.rsc !== undefined ||
    req.headers['next-router-state-tree'] !== undefined ||
    req.headers['next-router-prefetch'] !== undefined ||
    /(^|&)_rsc=/.test(query);
  return !(nextNavigation || (req.headers.accept ?? '').includes('text/html'));
}
