/**
 * The sign-in Origin check against a real `lineage serve --auth required` with its dashboard
 * (security review). Before, it compared the host name only, so a form posted from another
 * service on the same host (another port) or from the http site of an https dashboard signed in.
 * Now the Origin must be this server's whole origin — scheme, host and port. A TLS proxy
 * (`X-Forwarded-Proto: https`, or the https `--public-url`) still signs in.
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { raw, SIGNED_IN, signIn, withCookie, type RawReply } from './dashboard-http';
import { authRequiredServer } from './auth-required-server';
import { spawnServe, tempDataDir, type ChildServer } from './harness';

let server: ChildServer;
let dataDir: string;
let key = '';

authRequiredServer('signout', (s) => ({ server, dataDir, key } = s));


let nextAddress = 10;
/** POST /login from an address of its own (the sign-in limit is per address; all of 127/8 is this machine). */
function postLogin(base: string, headers: Record<string, string>): Promise<RawReply> {
  nextAddress += 1;
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/login`, {
      method: 'POST', localAddress: `127.0.3.${nextAddress}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(new URLSearchParams({ key, next: '/' }).toString());
  });
}

/** Signed in (303 with a session cookie) or refused as cross-origin (403, no cookie). */
function outcome(reply: RawReply): string {
  if (reply.status === 303 && /^(__Host-)?lineage_session=v2\./.test(reply.headers['set-cookie']?.[0] ?? '')) return 'signed in';
  if (reply.status === 403 && reply.headers['set-cookie'] === undefined) return 'refused';
  return `${reply.status} ${reply.headers['set-cookie']?.[0] ?? ''} ${reply.text}`;
}

describe('the sign-in Origin check compares the whole origin', () => {
  it('same scheme, host and port signs in; another port or scheme of the same host is refused', async () => {
    const { host, port } = new URL(server.url);
    const direct = { host };
    expect(outcome(await postLogin(server.url, { ...direct, origin: `http://${host}` }))).toBe('signed in');
    expect(outcome(await postLogin(server.url, { ...direct }))).toBe('signed in'); // curl: no Origin
    expect(outcome(await postLogin(server.url, { ...direct, origin: `http://127.0.0.1:${Number(port) + 1}` }))).toBe('refused');
    expect(outcome(await postLogin(server.url, { ...direct, origin: `https://${host}` }))).toBe('refused');
    expect(outcome(await postLogin(server.url, { ...direct, origin: 'http://127.0.0.1' }))).toBe('refused');
    expect(outcome(await postLogin(server.url, { ...direct, origin: 'null' }))).toBe('refused');
    // Sign-out is held to the same origin.
    const cookie = await signIn(server.url, key);
    const foreign = await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie, origin: `http://127.0.0.1:${Number(port) + 1}` } });
    expect(foreign.status).toBe(403);
    expect(await withCookie(server.url, cookie)).toEqual(SIGNED_IN);
  });

  it('behind a TLS proxy that forwards Host and X-Forwarded-Proto: https, the https origin signs in and the http one does not', async () => {
    const proxied = { host: 'localhost', 'x-forwarded-proto': 'https' };
    const reply = await postLogin(server.url, { ...proxied, origin: 'https://localhost' });
    expect(outcome(reply)).toBe('signed in');
    expect(reply.headers['set-cookie']![0]).toMatch(/^__Host-lineage_session=v2\.[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure$/);
    expect(outcome(await postLogin(server.url, { ...proxied, origin: 'https://localhost:443' }))).toBe('signed in');
    expect(outcome(await postLogin(server.url, { ...proxied, origin: 'http://localhost' }))).toBe('refused');
    expect(outcome(await postLogin(server.url, { ...proxied, origin: 'https://localhost:8443' }))).toBe('refused');
  });
});

describe('over https the session cookie is __Host-lineage_session', () => {
  it('it is taken over https and an unprefixed copy of it (one a plain-http answer or a subdomain could plant) is not; over http the reverse', async () => {
    const proxied = { host: 'localhost', 'x-forwarded-proto': 'https' };
    const reply = await postLogin(server.url, { ...proxied, origin: 'https://localhost' });
    const hostCookie = reply.headers['set-cookie']![0]!.split(';')[0]!;
    expect(hostCookie).toMatch(/^__Host-lineage_session=v2\./);
    const plainCookie = hostCookie.replace(/^__Host-/, '');
    const api = async (headers: Record<string, string>) => (await raw(`${server.url}/api/agents`, { headers })).status;
    expect(await api({ ...proxied, cookie: hostCookie })).toBe(200);
    expect(await api({ ...proxied, cookie: plainCookie })).toBe(401);
    expect(await api({ host: 'localhost', cookie: plainCookie })).toBe(200);
    expect(await api({ host: 'localhost', cookie: hostCookie })).toBe(401);
    // Sign-out over https ends it and clears the __Host- cookie.
    const out = await raw(`${server.url}/logout`, { method: 'POST', headers: { ...proxied, cookie: hostCookie } });
    expect(out.headers['set-cookie']![0]).toMatch(/^__Host-lineage_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0; Secure$/);
    expect(await api({ ...proxied, cookie: hostCookie })).toBe(401);
  });
});

describe('with an https --public-url behind a TLS proxy', () => {
  let proxied: ChildServer | undefined;
  let proxiedDir = '';
  afterAll(async () => {
    await proxied?.stop();
    if (proxiedDir) fs.rmSync(proxiedDir, { recursive: true, force: true });
  });

  it('the public origin signs in even when the proxy does not forward Host or the scheme; its http or another port is refused', async () => {
    proxiedDir = tempDataDir();
    const db = openDatabase(proxiedDir);
    key = createApiKey({ db, name: 'proxied', now: new Date() }).key;
    closeDatabase(db);
    proxied = await spawnServe(['--port', '0', '--auth', 'required', '--data', proxiedDir, '--public-url', 'https://lineage.example'], {}, 300_000);
    const { host } = new URL(proxied.url);
    const reply = await postLogin(proxied.url, { host, origin: 'https://lineage.example' });
    expect(outcome(reply)).toBe('signed in');
    expect(reply.headers['set-cookie']![0]).toMatch(/; Secure$/);
    expect(outcome(await postLogin(proxied.url, { host: 'lineage.example', origin: 'https://lineage.example' }))).toBe('signed in');
    expect(outcome(await postLogin(proxied.url, { host, origin: 'http://lineage.example' }))).toBe('refused');
    expect(outcome(await postLogin(proxied.url, { host, origin: 'https://lineage.example:8443' }))).toBe('refused');
    expect(outcome(await postLogin(proxied.url, { host: 'lineage.example', origin: 'http://lineage.example' }))).toBe('refused');
  }, 300_000);
});
