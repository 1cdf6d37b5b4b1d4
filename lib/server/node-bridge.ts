import type { IncomingMessage, ServerResponse } from 'node:http';
import { readNodeBody } from './node-body';
import type { ProtocolRequest, ProtocolResponse } from './protocol-http';

/**
 * The protocol's view of a Node request: headers read in place, the body read on demand — a 408
 * when no byte of it arrives for `bodyIdleMs` (node-body.ts).
 */
export function toProtocolRequest(req: IncomingMessage, bodyIdleMs: number): ProtocolRequest {
  const host = req.headers.host ?? '127.0.0.1';
  const url = `http://${/^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : '127.0.0.1'}${req.url?.startsWith('/') ? req.url : '/'}`;
  const method = req.method ?? 'GET';
  let read = false;
  return {
    method,
    url,
    headers: {
      get(name: string): string | null {
        const value = req.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    readBody(maxBytes: number): Promise<Uint8Array> {
      if (read) return Promise.reject(new Error('the request body was already read'));
      read = true;
      if (method === 'GET' || method === 'HEAD') return Promise.resolve(new Uint8Array(0));
      return readNodeBody(req, { maxBytes, idleMs: bodyIdleMs });
    },
  };
}

/**
 * Writes a protocol response. When the request body was not read to the end (e.g. a 413, or a 401
 * before the upload was read), the connection is closed rather than drained.
 */
export function sendProtocolResponse(req: IncomingMessage, res: ServerResponse, response: ProtocolResponse): void {
  const headers: Record<string, string> = { ...response.headers, 'content-length': String(response.body?.byteLength ?? 0) };
  if (!req.complete && req.method !== 'GET' && req.method !== 'HEAD') headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(response.body ?? undefined);
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
