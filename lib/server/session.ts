import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { LineageStorage } from '@/lib/storage/types';
import type { KeyIdentity } from './api-keys';

/** The dashboard's session cookie over http. */
export const SESSION_COOKIE = 'lineage_session';
/**
 * Its name over https: the `__Host-` prefix makes browsers take it only when Secure, for Path=/
 * and with no Domain, so neither a sibling subdomain nor a plain-http answer can plant one.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookie's name when the dashboard is reached over https (`secure`), or over http. */
export const sessionCookieName = (secure: boolean): string => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** Default life of a session: 7 days. */
export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Session cookies: `v2.<key id>.<session id>.<expiry seconds>.<HMAC>` signed with a key derived
 * from the data directory's secret. A cookie is good until it expires, its key is revoked, or its
 * session is ended by sign-out: every request looks the key id up and the session id among the
 * ended sessions (`ended_sessions`, kept until their expiry), so a copy of the cookie dies with
 * either. (`v1` cookies, which named no session and so could not be ended, are refused: sign in again.)
 */
export class SessionSigner {
  constructor(private readonly key: Buffer) {}

  /** The cookie value for a key, valid `ttlSeconds` from `now`. */
  issue(keyId: string, now: Date, ttlSeconds: number): string {
    const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const sessionId = randomUUID();
    return `v2.${keyId}.${sessionId}.${exp}.${this.mac(keyId, sessionId, exp)}`;
  }

  /** The key a cookie value names when its signature is right and it has not expired, else null. */
  verify(value: string, now: Date): { keyId: string; sessionId: string; exp: number } | null {
    const match = /^v2\.([0-9a-f-]{36})\.([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!match) return null;
    const keyId = match[1]!;
    const sessionId = match[2]!;
    const exp = Number(match[3]);
    const expected = Buffer.from(this.mac(keyId, sessionId, exp));
    const given = Buffer.from(match[4]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (exp * 1000 <= now.getTime()) return null;
    return { keyId, sessionId, exp };
  }

  private mac(keyId: string, sessionId: string, exp: number): string {
    return createHmac('sha256', this.key).update(`session-v2\n${keyId}\n${sessionId}\n${exp}`).digest('base64url');
  }
}

/** Cookie name → value from a `Cookie` header (first occurrence wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** The identity of a request's session cookie, or null (none, forged, expired, signed out, or its key revoked). */
export async function sessionIdentity(params: { signer: SessionSigner; storage: LineageStorage; cookieHeader: string | undefined; secure: boolean; now: Date }): Promise<KeyIdentity | null> {
  // Over https only the __Host- cookie counts: an unprefixed one could have been planted.
  const value = parseCookies(params.cookieHeader).get(sessionCookieName(params.secure));
  if (!value) return null;
  const session = params.signer.verify(value, params.now);
  return session ? params.storage.sessionKeyIdentity({ keyId: session.keyId, sessionId: session.sessionId }) : null;
}

/** Sign-out: the request's session (when its cookie is good) refused from now on, by every process. */
export async function endRequestSession(params: { signer: SessionSigner; storage: LineageStorage; cookieHeader: string | undefined; secure: boolean; now: Date }): Promise<void> {
  const value = parseCookies(params.cookieHeader).get(sessionCookieName(params.secure));
  const session = value ? params.signer.verify(value, params.now) : null;
  if (session) await params.storage.endSession({ sessionId: session.sessionId, expiresAt: session.exp, now: params.now });
}

/** `Set-Cookie` for a new session: HttpOnly, SameSite=Lax; over https Secure and named `__Host-lineage_session`. */
export function sessionCookie(value: string, ttlSeconds: number, secure: boolean): string {
  return `${sessionCookieName(secure)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${ttlSeconds}${secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` that removes the session (sign-out). */
export function clearedSessionCookie(secure: boolean): string {
  return `${sessionCookieName(secure)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}
