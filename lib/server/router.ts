import type { ProtocolRequest, ProtocolResponse } from './protocol-http';

/** A protocol handler: a request and its context in, a response out. */
export type Handler<C> = (req: ProtocolRequest, ctx: C) => Promise<ProtocolResponse>;

/** One protocol route: `pattern` segments starting with `:` capture a path parameter. */
export interface Route<C> {
  method: string;
  pattern: string;
  /** False for signed-URL routes that are called without an Authorization header. */
  auth: boolean;
  handler: Handler<C>;
}

/** Result of matching a request path against the route table. */
export type RouteMatch<C> =
  | { kind: 'found'; route: Route<C>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/** Matches `pathname` (already percent-decoded per segment) against `pattern`. */
function matchPattern(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i]!;
    const segment = segments[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return null;
  }
  return params;
}

function splitPath(pathname: string): string[] | null {
  try {
    return pathname.split('/').filter(Boolean).map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

/**
 * Finds the route for a method and path; distinguishes an unknown path from a wrong method. HEAD is
 * served wherever GET is (RFC 9110 §9.3.2: the GET's headers, no body — Node drops it).
 */
export function matchRoute<C>(routes: readonly Route<C>[], method: string, pathname: string): RouteMatch<C> {
  const segments = splitPath(pathname);
  if (!segments) return { kind: 'not_found' };
  const wanted = method === 'HEAD' ? 'GET' : method;
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (!params) continue;
    if (route.method === wanted) return { kind: 'found', route, params };
    allowed.push(...(route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]));
  }
  return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}

/** The same routes served under both `/agents/…` and `/v1/agents/…` (CONTRACT §1.1). */
export function withPrefixes<C>(routes: readonly Route<C>[], prefixes: readonly string[]): Route<C>[] {
  return prefixes.flatMap((prefix) => routes.map((route) => ({ ...route, pattern: `${prefix}${route.pattern}` })));
}
