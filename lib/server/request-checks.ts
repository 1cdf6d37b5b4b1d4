import type { IncomingMessage } from 'node:http';
import { jsonResponse, type ProtocolResponse } from './protocol-http';
import { echoPath } from '@/lib/core/echo';

/**
 * The 400 of a request whose path no route can read (issue 18 §7): malformed percent-encoding
 * (`%ZZ`, a lone `%`) or a NUL. Checked once before any route, the protocol's or the dashboard's,
 * so none of them meets a `URIError` and answers 500. Null when the path is fine.
 */
export function unreadablePath(rawUrl: string | undefined): ProtocolResponse | null {
  const pathname = (rawUrl ?? '/').split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return jsonResponse({ error: 'the request path has malformed percent-encoding (such as %ZZ)' }, 400);
  }
  if (decoded.includes('\u0000')) return jsonResponse({ error: 'the request path contains a NUL character' }, 400);
  return null;
}

/**
 * Brings the request target to origin form (`/path?query`) before anything routes it. An
 * absolute-form target (`GET http://host/path`, as a proxy sends it) is rewritten to its path, its
 * authority becoming the Host the allow-list then judges (RFC 9112 §3.2.2): left as it was, the
 * protocol never recognised its own routes and Next.js answered with a redirect to whatever host
 * the target named. Any other form (`*`) is a 400. Null when the request may go on.
 */
export function toOriginForm(req: IncomingMessage): ProtocolResponse | null {
  const target = req.url ?? '/';
  if (target.startsWith('/')) return null;
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      req.url = `${url.pathname}${url.search}`;
      req.headers.host = url.host;
      return null;
    } catch {
      // Not a URL after all: refused below.
    }
  }
  return jsonResponse({ error: `the request target must be a path starting with "/", got ${JSON.stringify(echoPath(target))}` }, 400);
}
