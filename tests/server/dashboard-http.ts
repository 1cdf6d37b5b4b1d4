/** HTTP helpers for the dashboard tests: no redirects followed, any Host header, session cookies. */
import http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with exactly these headers (Host included), the reply read whole. */
export function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** POST /login with a key; the reply (303 + Set-Cookie on success). */
export function postLogin(base: string, key: string, extra: Record<string, string> = {}): Promise<RawReply> {
  return raw(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...extra },
    body: new URLSearchParams({ key, next: '/' }).toString(),
  });
}

/** Signs in and returns the `Cookie` header value of the session. */
export async function signIn(base: string, key: string): Promise<string> {
  const reply = await postLogin(base, key);
  const setCookie = reply.headers['set-cookie']?.[0];
  if (reply.status !== 303 || !setCookie) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
  return setCookie.split(';')[0]!;
}

/** What a browser holding `cookie` gets: the API's status, and where the home page sends it (null: shown). */
export async function withCookie(base: string, cookie: string): Promise<{ api: number; page: number; location: string | null }> {
  const api = await raw(`${base}/api/agents`, { headers: { cookie } });
  const page = await raw(`${base}/`, { headers: { cookie, accept: 'text/html' } });
  return { api: api.status, page: page.status, location: page.headers.location ?? null };
}

/** `withCookie` of a signed-in session. */
export const SIGNED_IN = { api: 200, page: 200, location: null };
