import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The dashboard's Content-Security-Policy: nothing is loaded from another origin (a memory's
 * markdown images are links, never fetched), no framing, no plugins. Scripts run only from this
 * origin or with this response's nonce: Next.js reads the nonce from the request's
 * `content-security-policy` header and puts it on the scripts it renders.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "media-src 'self'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

/** Headers every response carries, the protocol's JSON included. */
export function setBaseSecurityHeaders(res: ServerResponse): void {
  res.setHeader('x-content-type-options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer a browser's form post carries `Origin: null`, which sign-in refuses.
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('x-frame-options', 'DENY');
}

/** A dashboard response: base headers plus a fresh CSP nonce, handed to Next through the request. */
export function setDashboardSecurityHeaders(req: IncomingMessage, res: ServerResponse): void {
  setBaseSecurityHeaders(res);
  const policy = contentSecurityPolicy(randomBytes(16).toString('base64'));
  res.setHeader('content-security-policy', policy);
  req.headers['content-security-policy'] = policy;
}
