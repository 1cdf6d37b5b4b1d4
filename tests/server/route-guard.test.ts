/**
 * THE ROUTE GUARD TEST. Every route under app/ — pages and route handlers, found from the file
 * system, so a new route is checked the moment it exists — against a real `lineage serve --host
 * 0.0.0.0` with its dashboard: no credential → 401 (API) or a redirect to /login (page); another
 * tenant → 404 for anything naming the owner's agent, and none of the owner's agents in a listing;
 * the owner and an admin → 200. A route without a fixture below fails: add one, and it is guarded.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { registerAgent } from '@/lib/ledger/agents';
import { openLedger } from '@/lib/ledger/ledger';
import { createApiKey, revokeApiKey } from '@/lib/server/api-keys';
import { record, snapshotBytes } from './archives';
import { postLogin, raw, signIn } from './dashboard-http';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const APP = path.resolve(process.cwd(), 'app');
const OWNER_NAME = 'owner-agent-alpha';
const OTHER_NAME = 'other-agent-beta';

/** Route patterns (Next.js folder syntax) of every page.tsx and route.ts under app/. */
export function appRoutes(dir = APP, prefix = ''): { pattern: string; kind: 'page' | 'api' }[] {
  const out: { pattern: string; kind: 'page' | 'api' }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name.startsWith('_')) continue; // private folders are not routes
      const segment = /^\(.*\)$/.test(entry.name) ? '' : `/${entry.name}`; // route groups add no segment
      out.push(...appRoutes(path.join(dir, entry.name), prefix + segment));
    } else if (/^page\.(tsx|ts|jsx|js|mdx)$/.test(entry.name)) out.push({ pattern: prefix || '/', kind: 'page' });
    else if (/^route\.(ts|js)$/.test(entry.name)) out.push({ pattern: prefix || '/', kind: 'api' });
  }
  return out.sort((a, b) => a.pattern.localeCompare(b.pattern));
}

/** The query string each route is called with (a route missing here fails the test). */
const FIXTURES: Record<string, string[]> = {
  '/': [''],
  '/search': ['?q=fact', '?q=fact&agent={id}'],
  '/login': [''],
  '/agents/[id]': [''],
  '/agents/[id]/memories/[recordId]': [''],
  '/agents/[id]/sequences/[seq]': [''],
  '/agents/[id]/workspace': [''],
  '/agents/[id]/compare': ['?from=0&to=0'],
  '/api/agents': [''],
  '/api/agents/[id]': [''],
  '/api/agents/[id]/compare': ['?from=0&to=0'],
  '/api/agents/[id]/at': ['?time=2099-01-01T00:00:00Z'],
  '/api/agents/[id]/records': [''],
  '/api/agents/[id]/records/[recordId]': [''],
  '/api/agents/[id]/sequences': [''],
  '/api/agents/[id]/sequences/[seq]': [''],
  '/api/agents/[id]/sequences/[seq]/ops': ['?op=create'],
  '/api/agents/[id]/sequences/[seq]/raw': ['', '?limit=1'],
  '/api/agents/[id]/workspace': [''],
  '/api/agents/[id]/workspace/file': ['?path=MEMORY.md'],
  '/api/agents/[id]/workspace/blame': ['?path=MEMORY.md', '?seq=0&path=MEMORY.md'],
  '/api/agents/[id]/workspace/download': ['?format=tar.gz', '?format=zip', '?format=alf'],
  '/api/agents/[id]/workspace/records': [''],
  '/api/agents/[id]/workspace/database': [''],
  '/api/changes': ['', '?agent={id}'],
  '/api/search': ['?q=fact', '?q=fact&agent={id}'],
  '/api/[[...path]]': ['/api/no-such-endpoint'],
};
/** Routes anyone may load. */
const PUBLIC = new Set(['/login']);
/** The JSON 404 of an /api path no route handles: guarded like the others, then a 404 for everyone. */
const NOT_FOUND = new Set(['/api/[[...path]]']);

let server: ChildServer;
let base: string;
let dataDir: string;
const keys = { owner: '', other: '', admin: '' };
const cookies = { owner: '', other: '', admin: '' };
const ownerAgent = randomUUID();
const otherAgent = randomUUID();
const localAgent = randomUUID();

async function syncAgent(key: string, id: string, name: string): Promise<void> {
  const reg = await call(`${base}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name, source_runtime: 'openclaw' }) });
  expect(reg.status).toBe(201);
  const put = await call(`${base}/agents/${id}/snapshot`, { method: 'PUT', key, contentType: 'application/octet-stream', body: await snapshotBytes(id) });
  expect(put.status).toBe(201);
}

beforeAll(async () => {
  dataDir = tempDataDir();
  const db = openDatabase(dataDir);
  keys.owner = createApiKey({ db, name: 'owner', now: new Date() }).key;
  keys.other = createApiKey({ db, name: 'other', now: new Date() }).key;
  keys.admin = createApiKey({ db, name: 'admin', now: new Date(), admin: true }).key;
  closeDatabase(db);
  // An agent synced locally (`lineage sync --data`): it belongs to the local owner, no key.
  const ledger = openLedger(dataDir);
  registerAgent({ ledger, id: localAgent, name: 'local-agent', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  closeDatabase(ledger.db);
  // Bound to every interface, as the README's several-machines setup does; the test talks to 127.0.0.1 only.
  server = await spawnServe(['--host', '0.0.0.0', '--port', '0', '--data', dataDir], {}, 900_000);
  base = server.url.replace('0.0.0.0', '127.0.0.1');
  await syncAgent(keys.owner, ownerAgent, OWNER_NAME);
  await syncAgent(keys.other, otherAgent, OTHER_NAME);
  for (const who of ['owner', 'other', 'admin'] as const) cookies[who] = await signIn(base, keys[who]);
}, 900_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function urlsOf(pattern: string): string[] {
  const fixtures = FIXTURES[pattern];
  if (!fixtures) throw new Error(`route ${pattern} has no fixture in tests/server/route-guard.test.ts: add one so the guard is checked on it`);
  if (NOT_FOUND.has(pattern)) return fixtures;
  const filled = pattern
    .replace('[id]', ownerAgent)
    .replace('[recordId]', String(record(ownerAgent, 1).id))
    .replace('[seq]', '0');
  return fixtures.map((q) => filled + q.replace('{id}', ownerAgent));
}

const routes = appRoutes();

/** Every page: a CSP with no remote source and no framing, nosniff, a Referrer-Policy. */
function expectPageHeaders(headers: import('node:http').IncomingHttpHeaders, what: string): void {
  const csp = String(headers['content-security-policy'] ?? '');
  expect(csp, what).toContain("default-src 'self'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toMatch(/https?:|\*/);
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['referrer-policy'], what).toBe('same-origin');
}

describe('the route guard covers every route under app/', () => {
  it('finds the pages and route handlers from the file system', () => {
    expect(routes.length).toBeGreaterThanOrEqual(Object.keys(FIXTURES).length);
    expect(routes.map((r) => r.pattern)).toEqual(expect.arrayContaining(['/', '/api/agents', '/agents/[id]', '/login']));
  });

  it.each(routes)('$kind $pattern: no credential → 401 / /login; other tenant → 404 or nothing of the owner; owner and admin → 200', async ({ pattern, kind }) => {
    for (const target of urlsOf(pattern)) {
      const url = `${base}${target}`;
      const namesOwner = target.includes(ownerAgent);
      // Pages are asked for as a browser does (text/html): /agents/… without it is the ALF protocol.
      const accept: Record<string, string> = kind === 'page' ? { accept: 'text/html,application/xhtml+xml' } : {};
      const as = (who: keyof typeof cookies, bearer = kind === 'api') =>
        raw(url, { headers: { ...accept, ...(bearer ? { authorization: `Bearer ${keys[who]}` } : { cookie: cookies[who] }) } });

      const anonymous = await raw(url, { headers: accept });
      if (PUBLIC.has(pattern)) {
        expect(anonymous.status, target).toBe(200);
        continue;
      }
      for (const reply of [anonymous, await raw(url, { headers: { ...accept, cookie: 'lineage_session=v1.forged' } })]) {
        if (kind === 'api') {
          expect(reply.status, target).toBe(401);
          expect(JSON.parse(reply.text).error, target).toMatch(/sign-in required/);
        } else {
          expect(reply.status, target).toBe(303);
          expect(reply.headers.location, target).toBe(`/login?next=${encodeURIComponent(target)}`);
        }
        expect(reply.text).not.toContain(OWNER_NAME);
      }
      if (kind === 'api') expect((await raw(url, { headers: { authorization: 'Bearer alf_sk_wrong' } })).status, target).toBe(401);
      if (NOT_FOUND.has(pattern)) {
        for (const who of ['other', 'owner', 'admin'] as const) {
          const reply = await as(who);
          expect(reply.status, `${who} ${target}`).toBe(404);
          expect(JSON.parse(reply.text).error, `${who} ${target}`).toBe(`no such API endpoint: GET ${target}`);
        }
        continue;
      }

      const other = await as('other');
      if (namesOwner) expect(other.status, target).toBe(404);
      else expect(other.status, target).toBe(200);
      // A 404 echoes the id that was asked for; nothing else of the owner's agent shows.
      if (!namesOwner) expect(other.text, target).not.toContain(ownerAgent);
      expect(other.text, target).not.toContain(OWNER_NAME);
      if (kind === 'api') {
        // The other tenant's session cookie is held to the same scope as its key.
        const viaCookie = await as('other', false);
        expect(viaCookie.status, target).toBe(namesOwner ? 404 : 200);
        expect(viaCookie.text, target).not.toContain(OWNER_NAME);
      }

      for (const who of ['owner', 'admin'] as const) {
        const reply = await as(who);
        expect(reply.status, `${who} ${target}: ${reply.text.slice(0, 300)}`).toBe(200);
        if (kind === 'page') expectPageHeaders(reply.headers, target);
        if (kind === 'api' && !namesOwner && pattern !== '/api/changes') expect(reply.text, `${who} ${target}`).toContain(ownerAgent);
      }
    }
  }, 120_000);

  it('an admin sees every tenant and the local owner\'s agents; a tenant only its own', async () => {
    const list = async (key: string) => (JSON.parse((await raw(`${base}/api/agents`, { headers: { authorization: `Bearer ${key}` } })).text) as { id: string }[]).map((a) => a.id).sort();
    expect(await list(keys.admin)).toEqual([ownerAgent, otherAgent, localAgent].sort());
    expect(await list(keys.owner)).toEqual([ownerAgent]);
    expect(await list(keys.other)).toEqual([otherAgent]);
  });
});

describe('sign-in and sessions on the network-bound dashboard', () => {
  it('a wrong key goes back to /login with the reason; a cross-origin form post is refused', async () => {
    const wrong = await postLogin(base, 'alf_sk_wrong');
    expect(wrong.status).toBe(303);
    expect(wrong.headers.location).toBe('/login?error=invalid&next=%2F');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const csrf = await postLogin(base, keys.owner, { origin: 'http://evil.example' });
    expect(csrf.status).toBe(403);
    expect(csrf.headers['set-cookie']).toBeUndefined();
  });

  it('the cookie: HttpOnly, SameSite=Lax, 7 days, Secure only over https', async () => {
    const plain = (await postLogin(base, keys.owner)).headers['set-cookie']![0]!;
    expect(plain).toMatch(/^lineage_session=v2\.[0-9a-f-]{36}\.[0-9a-f-]{36}\.\d+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const tls = (await postLogin(base, keys.owner, { 'x-forwarded-proto': 'https' })).headers['set-cookie']![0]!;
    expect(tls).toMatch(/; Secure$/);
  });

  it('sign-out clears the cookie', async () => {
    // A session of its own: sign-out ends it on the server (tests/server/signout.test.ts).
    const out = await raw(`${base}/logout`, { method: 'POST', headers: { cookie: await signIn(base, keys.owner) } });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login?signed_out=1');
    expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);
  });

  it('a session dies as soon as its key is revoked', async () => {
    const db = openDatabase(dataDir);
    const issued = createApiKey({ db, name: 'short-lived', now: new Date() });
    closeDatabase(db);
    const cookie = await signIn(base, issued.key);
    expect((await raw(`${base}/api/agents`, { headers: { cookie } })).status).toBe(200);
    const again = openDatabase(dataDir);
    expect(revokeApiKey({ db: again, id: issued.id })).toBe(true);
    closeDatabase(again);
    expect((await raw(`${base}/api/agents`, { headers: { cookie } })).status).toBe(401);
    expect((await raw(`${base}/`, { headers: { cookie, accept: 'text/html' } })).status).toBe(303);
  });

  it('a foreign Host is a 421 on pages, the dashboard API and the protocol alike', async () => {
    for (const target of ['/', '/login', '/api/agents', '/agents']) {
      const reply = await raw(`${base}${target}`, { headers: { host: 'rebound.example', cookie: cookies.admin, authorization: `Bearer ${keys.admin}` } });
      expect(reply.status, target).toBe(421);
    }
  });

  it('a `next` holding a tab, a line break or a dot segment goes back to this site, never elsewhere and never a 500', async () => {
    // Browsers drop tabs and line breaks from a Location and read `\\` as `/`: `/<TAB>/evil.example` is `//evil.example`.
    const origin = new URL(base).origin;
    const nexts = ['/\t/evil.example', '/\n/evil.example', '/\r\nx-injected: 1', '/.//evil.example', '/\t\\evil.example', '/agents/\nx?y=1'];
    for (const [i, next] of nexts.entries()) {
      // From an address of its own each (all of 127/8 is this machine): the sign-in rate limit is per address.
      const reply = await new Promise<{ status: number; headers: import('node:http').IncomingHttpHeaders }>((resolve, reject) => {
        const body = new URLSearchParams({ key: keys.owner, next }).toString();
        const req = http.request(`${base}/login`, {
          method: 'POST', localAddress: `127.0.2.${i + 1}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(reply.status, JSON.stringify(next)).toBe(303);
      expect(new URL(reply.headers.location!, base).origin, JSON.stringify(next)).toBe(origin);
      expect(reply.headers['x-injected'], JSON.stringify(next)).toBeUndefined();
    }
  });

  it('sign-in attempts are rate-limited per client (429 with Retry-After)', async () => {
    let limited = null;
    for (let i = 0; i < 12 && !limited; i += 1) {
      const reply = await postLogin(base, 'alf_sk_guess');
      if (reply.status === 429) limited = reply;
    }
    expect(limited).not.toBeNull();
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right key waits now.
    expect((await postLogin(base, keys.owner)).status).toBe(429);
  });
});

describe('loopback bind: open as before, unless --auth required', () => {
  let open: ChildServer | undefined;
  let openDir: string;
  afterAll(async () => {
    await open?.stop();
    if (openDir) fs.rmSync(openDir, { recursive: true, force: true });
  });

  it('answers every page and API route without a credential, showing every tenant', async () => {
    openDir = tempDataDir();
    open = await spawnServe(['--port', '0', '--data', openDir], {}, 900_000);
    expect((await raw(`${open.url}/api/agents`)).status).toBe(200);
    const home = await raw(`${open.url}/`, { headers: { accept: 'text/html' } });
    expect(home.status).toBe(200);
    expectPageHeaders(home.headers, '/');
    expect(home.text).not.toContain('Sign out');
  }, 900_000);
});
