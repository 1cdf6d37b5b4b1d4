/**
 * Sign-out against a real `lineage serve --auth required` with its dashboard (security review).
 * Sign-out ends the session on the server. Before, it only asked the browser to drop the cookie:
 * a copy of it (another browser, a stolen cookie) kept working for 7 days unless the whole key was
 * revoked. Now the copy is refused — a page redirects to /login, the API is a 401 — even by a
 * restarted server (the ended session is in the data directory's database), while another
 * session of the same key goes on. (tests/server/signout-origin.test.ts: the Origin check.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { raw, SIGNED_IN, signIn, withCookie } from './dashboard-http';
import { authRequiredServer } from './auth-required-server';
import { spawnServe, type ChildServer } from './harness';

let server: ChildServer;
let dataDir: string;
let key = '';

authRequiredServer('signout', (s) => ({ server, dataDir, key } = s));
// The server a test restarted (the first one the helper stops).
afterAll(async () => {
  await server?.stop();
});

const SIGNED_OUT = { api: 401, page: 303, location: '/login?next=%2F' };

describe('sign-out ends the session on the server', () => {
  it('a copy of a signed-out cookie is refused (page → /login, API 401), also after a restart; another session of the key goes on', async () => {
    const cookie = await signIn(server.url, key);
    const copy = `${cookie}`;
    const other = await signIn(server.url, key);
    expect(await withCookie(server.url, copy)).toEqual(SIGNED_IN);

    const out = await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login?signed_out=1');
    expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);

    expect(await withCookie(server.url, copy)).toEqual(SIGNED_OUT);
    expect(await withCookie(server.url, other)).toEqual(SIGNED_IN);
    // Signing out again with the copy is harmless, and changes nothing for the other session.
    expect((await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie: copy } })).status).toBe(303);
    expect(await withCookie(server.url, other)).toEqual(SIGNED_IN);

    // The ended session is kept in the data directory's database, not in the process.
    await server.stop();
    server = await spawnServe(['--port', '0', '--auth', 'required', '--data', dataDir], {}, 300_000);
    expect(await withCookie(server.url, copy)).toEqual(SIGNED_OUT);
    expect(await withCookie(server.url, other)).toEqual(SIGNED_IN);
  }, 400_000);

  it('a sign-out with no cookie, or a forged one, just clears the cookie', async () => {
    const other = await signIn(server.url, key);
    for (const headers of [{}, { cookie: 'lineage_session=v2.x.y.1.z' }, { cookie: `${other.slice(0, -3)}AAA` }] as Record<string, string>[]) {
      const out = await raw(`${server.url}/logout`, { method: 'POST', headers });
      expect(out.status).toBe(303);
      expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);
    }
    expect(await withCookie(server.url, other)).toEqual(SIGNED_IN);
  });
});
