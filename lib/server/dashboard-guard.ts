import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TenantScope } from '@/lib/ledger/agents';
import type { KeyIdentity } from './api-keys';
import { GUARD_HEADER, SCOPE_HEADER, SIGNED_IN_HEADER, encodeScope, guardToken } from './scope-header';
import { setDashboardSecurityHeaders } from './security-headers';
import { repoRoot } from './next-ui';
import { sessionIdentity } from './session';
import { handleSignIn, handleSignOut, redirect, sendText, type SignInConfig } from './sign-in';
import { echoInput, echoPath } from '@/lib/core/echo';

/** The guard's settings: sign-in is required unless the server is bound to loopback without `--auth required`. */
export interface DashboardGuardConfig extends SignInConfig {
  authRequired: boolean;
}

/**
 * The dashboard only reads (sign-in and sign-out aside, answered here): any other method is a JSON
 * 405 here. Next.js answered it with an empty 405 on an API route, rendered a page as for a GET,
 * and took a POST with a `Next-Action` header for a server action (a 400 and a stack trace in the
 * log; the dashboard has none). OPTIONS goes on: Next answers it with the route's methods.
 */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths anyone may load: the sign-in page and the static assets it needs (no data in them). */
function isPublic(method: string, pathname: string): boolean {
  if (pathname.startsWith('/_next/static/') || pathname === '/favicon.svg') return true;
  return pathname === '/login' && (method === 'GET' || method === 'HEAD');
}

/** Agent ids a request names: `/agents/<id>…`, `/api/agents/<id>…` and an `agent` query parameter. */
function agentIdsOf(url: URL): string[] | null {
  const ids: string[] = [];
  const match = /^\/(?:api\/)?agents\/([^/]+)/.exec(url.pathname);
  try {
    if (match) ids.push(decodeURIComponent(match[1]!));
  } catch {
    return null;
  }
  for (const id of url.searchParams.getAll('agent')) ids.push(id);
  return ids;
}

let validateRouterState: ((header: string) => unknown) | null | undefined;

/**
 * Why a request's `Next-Router-State-Tree` (a client navigation's record of the layouts it holds)
 * is not one Next.js can read, or null. Next threw on such a header in rendering its not-found page
 * — another tenant's agent, a path no route has — and answered a 500; it is a 400 here. Judged by
 * Next's own parser, so a header its client sends is never refused (if a later Next moves it, the
 * header goes on unjudged, as before).
 */
function malformedRouterState(req: IncomingMessage): string | null {
  const header = req.headers['next-router-state-tree'];
  if (header === undefined) return null;
  if (validateRouterState === undefined) {
    try {
      const require = createRequire(path.join(repoRoot(), 'package.json'));
      validateRouterState = (require('next/dist/server/app-render/parse-and-validate-flight-router-state.js') as { parseAndValidateFlightRouterState: (h: string) => unknown }).parseAndValidateFlightRouterState;
    } catch {
      validateRouterState = null;
    }
  }
  if (!validateRouterState) return null;
  try {
    validateRouterState(String(header));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  sendText(res, status, 'application/json', JSON.stringify(body), headers);

/** Who is asking: a Bearer key on /api/*, else the session cookie; null when neither is valid. */
async function identify(req: IncomingMessage, api: boolean, config: DashboardGuardConfig): Promise<{ identity: KeyIdentity | null; session: boolean; badBearer: boolean }> {
  const header = req.headers.authorization;
  if (api && header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const identity = match ? await config.storage.identifyKey({ key: match[1]! }) : null;
    return { identity, session: false, badBearer: identity === null };
  }
  const identity = await sessionIdentity({ signer: config.sessions, storage: config.storage, cookieHeader: req.headers.cookie, secure: config.secure(req), now: config.clock() });
  return { identity, session: identity !== null, badBearer: false };
}

/**
 * Every dashboard request passes here before Next.js: security headers, sign-in and sign-out,
 * the session or Bearer check, and the tenant check of any agent the request names (another
 * tenant's agent is a 404, as in the protocol). Then the request goes on to Next.js carrying its
 * tenant scope (scope-header.ts), which pages and route handlers read; a client cannot forge it.
 * Returns true when the request was answered here.
 */
export async function guardDashboardRequest(req: IncomingMessage, res: ServerResponse, config: DashboardGuardConfig): Promise<boolean> {
  for (const name of Object.keys(req.headers)) if (name.startsWith('x-lineage-')) delete req.headers[name];
  setDashboardSecurityHeaders(req, res);
  const method = req.method ?? 'GET';
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://dashboard.invalid');
  } catch {
    json(res, 400, { error: 'malformed request URL' });
    return true;
  }
  const { pathname } = url;
  if (pathname === '/login' && method === 'POST') return handleSignIn(req, res, config).then(() => true);
  if (pathname === '/logout' && method === 'POST') return handleSignOut(req, res, config).then(() => true);
  if (isPublic(method, pathname)) return false;
  const api = pathname === '/api' || pathname.startsWith('/api/');
  let scope: TenantScope = undefined;
  let signedIn = false;
  if (config.authRequired) {
    const who = await identify(req, api, config);
    if (!who.identity) {
      if (api) json(res, 401, { error: who.badBearer ? 'invalid API key' : 'sign-in required: send "Authorization: Bearer <api key>" or sign in at /login' }, { 'www-authenticate': 'Bearer' });
      else redirect(res, `/login?next=${encodeURIComponent(pathname + url.search)}`);
      return true;
    }
    scope = who.identity.admin ? undefined : who.identity.id;
    signedIn = who.session;
  }
  if (scope !== undefined) {
    const ids = agentIdsOf(url);
    let foreign: string | undefined = ids === null ? 'agent' : undefined;
    for (const id of ids ?? []) {
      if (!(await config.storage.getAgent({ agentId: id, tenantId: scope }))) {
        foreign = id;
        break;
      }
    }
    if (foreign !== undefined) {
      if (api) {
        json(res, 404, { error: `agent ${echoInput(foreign)} not found` });
        return true;
      }
      // No route matches a private `_` folder: Next renders its not-found page with a 404.
      req.url = '/_lineage/not-found';
    }
  }
  if (!READ_METHODS.has(method)) {
    const why = api ? 'the dashboard API is read-only (GET)' : 'the dashboard\'s pages are only read (GET); sign in and out with POST /login and POST /logout';
    json(res, 405, { error: `method ${method} not allowed on ${echoPath(pathname)}: ${why}` }, { allow: 'GET, HEAD' });
    return true;
  }
  const routerState = malformedRouterState(req);
  if (routerState) {
    json(res, 400, { error: `malformed Next-Router-State-Tree header: ${routerState}` });
    return true;
  }
  req.headers[GUARD_HEADER] = guardToken();
  req.headers[SCOPE_HEADER] = encodeScope(scope);
  if (signedIn) req.headers[SIGNED_IN_HEADER] = '1';
  return false;
}
