import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@/lib/core/clock';
import type { LineageStorage } from '@/lib/storage/types';
import { ServiceError } from './errors';
import { hostnameOf } from './hosts';
import { readNodeBody } from './node-body';
import { clearedSessionCookie, endRequestSession, sessionCookie, type SessionSigner } from './session';
import type { SignInRateLimit } from './session-rate-limit';

/** What sign-in and sign-out need from the server. */
export interface SignInConfig {
  storage: LineageStorage;
  sessions: SessionSigner;
  sessionTtlSeconds: number;
  rateLimit: SignInRateLimit;
  /** The client a request comes from: its peer, or behind a trusted proxy the forwarded client (trusted-proxy.ts). */
  clientAddress(req: IncomingMessage): string;
  allowedHosts: ReadonlySet<string>;
  /** The origin of `--public-url` / `LINEAGE_PUBLIC_URL` (scheme, host, port), when one is set. */
  publicOrigin: string | null;
  /** Set the cookie's Secure flag (the dashboard is reached over https). */
  secure(req: IncomingMessage): boolean;
  clock: Clock;
  /** A sign-in form from which no byte arrives for this long (ms) is a 408 (ServerLimits.bodyIdleMs). */
  bodyIdleMs: number;
}

const MAX_FORM_BYTES = 8 * 1024;

const NEXT_BASE = 'http://next.invalid';
const offSite = (path: string) => !path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\') || path.startsWith('/login');

/**
 * A same-site path to go back to after sign-in (never another origin), as the browser will read it:
 * parsed as a URL is (tabs and line breaks dropped, `\` a slash — `/<TAB>/evil.example` is
 * `//evil.example` to a browser) and given back serialized, so percent-encoded: nothing in it can
 * break the Location header (a line break there was a 500) or lead off-site.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || offSite(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return '/';
  }
  const path = url.pathname + url.search + url.hash;
  return url.origin !== NEXT_BASE || offSite(path) ? '/' : path;
}

export function sendText(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { location, 'cache-control': 'no-store', ...headers });
  res.end();
}

/**
 * The origins this server is reached at, as far as it knows: the public URL's, and the one the
 * request itself names — its `Host` (one the server answers) with https when the cookie would be
 * Secure (an https public URL, or `X-Forwarded-Proto: https` from a TLS proxy), else http.
 */
function ownOrigins(req: IncomingMessage, config: Pick<SignInConfig, 'allowedHosts' | 'publicOrigin' | 'secure'>): Set<string> {
  const out = new Set<string>();
  if (config.publicOrigin) out.add(config.publicOrigin);
  const host = req.headers.host;
  const name = hostnameOf(host);
  if (host && name && config.allowedHosts.has(name)) {
    const scheme = config.secure(req) ? 'https' : 'http';
    try {
      out.add(new URL(`${scheme}://${host.trim()}`).origin);
    } catch {
      // A Host no URL can hold names no origin.
    }
  }
  return out;
}

/**
 * A form post from another origin is refused (login CSRF); a post with no Origin (curl) is not.
 * The whole origin is compared — scheme, host and port — so another service on the same host
 * (another port) or the plain-http site of an https dashboard is another origin.
 */
function crossOrigin(req: IncomingMessage, config: Pick<SignInConfig, 'allowedHosts' | 'publicOrigin' | 'secure'>): boolean {
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return origin === 'null';
  try {
    return !ownOrigins(req, config).has(new URL(origin).origin);
  } catch {
    return true;
  }
}

/**
 * The form, or the answer already sent instead: a form over 8 KiB (it was read to the end before,
 * however large), a form that stopped arriving (408, node-body.ts), a client gone mid-form (nothing
 * to answer; before, that request waited forever). The connection is closed after a refusal.
 */
async function readForm(req: IncomingMessage, res: ServerResponse, idleMs: number): Promise<URLSearchParams | null> {
  try {
    return new URLSearchParams(Buffer.from(await readNodeBody(req, { maxBytes: MAX_FORM_BYTES, idleMs })).toString('utf8'));
  } catch (error) {
    const close = { connection: 'close' };
    if (!(error instanceof ServiceError) || error.code === 'bad_request') res.destroy();
    else if (error.code === 'payload_too_large') sendText(res, 400, 'text/plain; charset=utf-8', 'sign-in form too large\n', close);
    else sendText(res, error.status, 'application/json', JSON.stringify({ error: error.message }), close);
    return null;
  }
}

/** POST /login (form: `key`, `next`): a session cookie and back to `next`, or back to /login with the reason. */
export async function handleSignIn(req: IncomingMessage, res: ServerResponse, config: SignInConfig): Promise<void> {
  if (crossOrigin(req, config)) return sendText(res, 403, 'text/plain; charset=utf-8', 'sign-in from another origin refused\n');
  const wait = config.rateLimit.attempt(config.clientAddress(req), config.clock());
  if (wait > 0) {
    req.resume();
    return sendText(res, 429, 'text/html; charset=utf-8', `<!doctype html><title>Too many sign-in attempts</title><p>Too many sign-in attempts from this address. Try again in ${wait} s. <a href="/login">Back to sign-in</a></p>`, { 'retry-after': String(wait) });
  }
  const form = await readForm(req, res, config.bodyIdleMs);
  if (!form) return;
  const next = safeNextPath(form.get('next'));
  const identity = await config.storage.identifyKey({ key: (form.get('key') ?? '').trim() });
  if (!identity) return redirect(res, `/login?error=invalid&next=${encodeURIComponent(next)}`);
  const value = config.sessions.issue(identity.id, config.clock(), config.sessionTtlSeconds);
  redirect(res, next, { 'set-cookie': sessionCookie(value, config.sessionTtlSeconds, config.secure(req)) });
}

/**
 * POST /logout: the session ended on the server (a copy of its cookie is refused too), the cookie
 * removed, back to /login. When the database does not take the ended session (read-only, busy,
 * unreachable) the cookie is removed all the same and the answer is a 503 page saying the session
 * was not ended on the server — before, it was a 500 and the browser kept its cookie.
 */
export async function handleSignOut(req: IncomingMessage, res: ServerResponse, config: SignInConfig): Promise<void> {
  if (crossOrigin(req, config)) return sendText(res, 403, 'text/plain; charset=utf-8', 'sign-out from another origin refused\n');
  req.resume();
  const cleared = { 'set-cookie': clearedSessionCookie(config.secure(req)) };
  try {
    await endRequestSession({ signer: config.sessions, storage: config.storage, cookieHeader: req.headers.cookie, secure: config.secure(req), now: config.clock() });
  } catch (error) {
    console.error('[lineage serve] sign-out could not end the session in the database:', error);
    return sendText(res, 503, 'text/html; charset=utf-8', SIGN_OUT_FAILED, cleared);
  }
  redirect(res, '/login?signed_out=1', cleared);
}

const SIGN_OUT_FAILED = '<!doctype html><title>Signed out of this browser only</title><p>This browser no longer holds the session, but the server could not end it: the database did not take the change (it may be read-only, busy or unreachable; the server log says why). A copy of the session cookie would keep working until it expires, or until its key is revoked (<code>lineage keys revoke ID</code>). <a href="/login">Back to sign-in</a></p>';
