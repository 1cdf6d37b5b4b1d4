import { jsonResponse, type ProtocolResponse } from './protocol-http';

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
