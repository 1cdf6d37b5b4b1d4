/**
 * An attacker's view of a served team instance (README "Several machines: serving on the network"):
 * a real `lineage serve --host 0.0.0.0` with its dashboard, tenant A (the owner, whose agent holds a
 * secret), tenant B (the attacker, signed in with its own key) and an anonymous client.
 *
 * - Every answer of the dashboard API is tenant data fetched with a cookie: it must say that no
 *   shared cache (a caching TLS proxy in front of the server) may keep it, or the next tenant
 *   asking the same URL through that proxy would be handed it. Pages already said so (Next's
 *   dynamic pages); the API said nothing.
 * - Paths crafted so the guard in front of Next.js and Next.js itself might read them apart
 *   (percent-encoded segments, dot segments, `.rsc`, RSC and router-state headers, `_rsc`,
 *   encoded traversal under the public `/_next/static/`) never show A's agent to B or anything to
 *   an anonymous client.
 * - On the protocol, B's key on A's agent answers exactly what it answers for an id nobody holds.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { writeSnapshot } from '@/lib/core/archive';
import { createApiKey } from '@/lib/server/api-keys';
import { record, snapshotBytes } from './archives';
import { raw, signIn } from './dashboard-http';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const SECRET = 'zanzibar-owner-secret';
const OWNER_NAME = `owner-${SECRET}`;

let server: ChildServer;
let base: string;
let dataDir: string;
const keys = { owner: '', other: '' };
const cookies = { owner: '', other: '' };
const ownerAgent = randomUUID();
const otherAgent = randomUUID();

async function ownerSnapshot(id: string): Promise<Uint8Array> {
  return writeSnapshot({
    manifest: { alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id, name: OWNER_NAME, source_runtime: 'openclaw' }, layers: {} },
    records: [record(id, 1, `the ${SECRET} lives here`), record(id, 2)],
    layers: {},
    raw: new Map([['raw/openclaw/MEMORY.md', Buffer.from(`# Memory\n\n${SECRET}\n`)]]),
    extra: new Map(),
  });
}

async function syncAgent(key: string, id: string, name: string, bytes: Uint8Array): Promise<void> {
  const reg = await call(`${base}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name, source_runtime: 'openclaw' }) });
  expect(reg.status, reg.text).toBe(201);
  const put = await call(`${base}/agents/${id}/snapshot`, { method: 'PUT', key, contentType: 'application/octet-stream', body: bytes });
  expect(put.status, put.text).toBe(201);
}

beforeAll(async () => {
  dataDir = tempDataDir();
  const db = openDatabase(dataDir);
  keys.owner = createApiKey({ db, name: 'owner', now: new Date() }).key;
  keys.other = createApiKey({ db, name: 'other', now: new Date() }).key;
  closeDatabase(db);
  server = await spawnServe(['--host', '0.0.0.0', '--port', '0', '--data', dataDir], {}, 900_000);
  base = server.url.replace('0.0.0.0', '127.0.0.1');
  await syncAgent(keys.owner, ownerAgent, OWNER_NAME, await ownerSnapshot(ownerAgent));
  await syncAgent(keys.other, otherAgent, 'other-agent', await snapshotBytes(otherAgent));
  for (const who of ['owner', 'other'] as const) cookies[who] = await signIn(base, keys[who]);
}, 900_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Every route.ts under app/api, as a Next.js folder pattern. */
function apiRoutes(dir = path.resolve(process.cwd(), 'app/api'), prefix = '/api'): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith('_')) out.push(...apiRoutes(path.join(dir, entry.name), `${prefix}/${entry.name}`));
    else if (entry.name === 'route.ts') out.push(prefix);
  }
  return out.sort();
}

/** The owner's URLs of each API route (a route missing here fails: add it). */
const API_FIXTURES: Record<string, string[]> = {
  '/api/[[...path]]': ['/api/no-such-endpoint'],
  '/api/agents': ['', '?view=names'],
  '/api/agents/[id]': [''],
  '/api/agents/[id]/at': ['?time=2099-01-01T00:00:00Z'],
  '/api/agents/[id]/compare': ['?from=0&to=0'],
  '/api/agents/[id]/records': [''],
  '/api/agents/[id]/records/[recordId]': [''],
  '/api/agents/[id]/sequences': [''],
  '/api/agents/[id]/sequences/[seq]': ['', '/no-such-child'],
  '/api/agents/[id]/sequences/[seq]/ops': ['?op=create'],
  '/api/agents/[id]/sequences/[seq]/raw': [''],
  '/api/agents/[id]/workspace': ['', '?seq=0'],
  '/api/agents/[id]/workspace/blame': ['?path=MEMORY.md', '?seq=0&path=MEMORY.md'],
  '/api/agents/[id]/workspace/database': [''],
  '/api/agents/[id]/workspace/download': ['?format=zip', '?seq=0&format=tar.gz', '?format=alf'],
  '/api/agents/[id]/workspace/file': ['?path=MEMORY.md', '?seq=0&path=MEMORY.md'],
  '/api/agents/[id]/workspace/records': [''],
  '/api/changes': ['', '?since=bogus'],
  '/api/search': [`?q=${SECRET}`, '?q='],
};

function urlsOf(pattern: string): string[] {
  const fixtures = API_FIXTURES[pattern];
  if (!fixtures) throw new Error(`API route ${pattern} has no fixture in tests/server/security-review.test.ts: add one`);
  if (pattern.includes('[[...')) return fixtures;
  const filled = pattern.replace('[id]', ownerAgent).replace('[recordId]', String(record(ownerAgent, 1).id)).replace('[seq]', '0');
  return fixtures.map((q) => filled + q);
}

/** A response a shared cache must neither store nor hand to anyone else. */
function expectNotShared(cacheControl: string | undefined, what: string): void {
  const directives = (cacheControl ?? '').split(',').map((d) => d.trim().toLowerCase());
  expect(directives.includes('private') || directives.includes('no-store'), `${what}: Cache-Control ${JSON.stringify(cacheControl)}`).toBe(true);
  expect(directives.some((d) => d === 'public' || d.startsWith('s-maxage')), `${what}: Cache-Control ${JSON.stringify(cacheControl)}`).toBe(false);
}

describe('tenant data from the dashboard API is never left to a shared cache', () => {
  it.each(apiRoutes())('%s: the owner\'s answers, by cookie and by Bearer, success and refusal, are private or no-store', async (pattern) => {
    for (const target of urlsOf(pattern)) {
      for (const headers of [{ cookie: cookies.owner }, { authorization: `Bearer ${keys.owner}` }] as Record<string, string>[]) {
        const reply = await raw(`${base}${target}`, { headers });
        expect(reply.status, `${target}: ${reply.text.slice(0, 200)}`).toBeLessThan(500);
        expectNotShared(reply.headers['cache-control'], `${reply.status} ${target}`);
      }
    }
  }, 120_000);
});

/** A Next.js router state (Next-Router-State-Tree) of a client that holds the agent layout of `id`. */
const heldLayout = (id: string) =>
  encodeURIComponent(JSON.stringify(['', { children: ['agents', { children: [['id', id, 'd', null], { children: ['__PAGE__', {}] }] }] }, null, null]));

/** A search B sends echoes its query: B asks a misspelling, whose suggestion would be A's word. */
const TYPO = 'zanzibarr';
const leaks = (text: string) => text.includes(SECRET) || text.includes(OWNER_NAME) || /zanzibar(?!r)/.test(text);

describe('tenant B crafting paths toward tenant A\'s agent', () => {
  const A = () => ownerAgent;
  const variants = (): string[] => [
    `/agents/${A()}`, `/agents/${A()}/`, `/agents/${A()}/workspace`, `/agents/${A()}/sequences/0`,
    `/agents/${A()}/memories/${record(A(), 1).id}`, `/agents/${A()}/compare?from=0&to=0`,
    `/%61gents/${A()}`, `/agents/%${A().charCodeAt(0).toString(16)}${A().slice(1)}`, `/agents/${A().toUpperCase()}`,
    `/agents/${A()}.rsc`, `/agents/${A()};x`, `/./agents/${A()}`, `/x/../agents/${A()}`, `/x/..%2fagents/${A()}`,
    `/agents%2f${A()}`, `/agents/${A()}/../${A()}`, `/agents//${A()}`,
    `/api/agents/${A()}`, `/api/%61gents/${A()}`, `/%61pi/agents/${A()}`, `/api/agents%2f${A()}`,
    `/api/agents/${A()}/workspace/download?format=zip`, `/api/agents/${A()}/workspace/file?path=MEMORY.md`,
    `/api/agents/${encodeURIComponent(` ${A()}`)}`, `/api/agents/${A()}%20`,
    `/api/search?q=${TYPO}`, `/api/search?q=${TYPO}&agent=${A()}`, `/search?q=${TYPO}`, `/search?q=${TYPO}&agent=${A()}`,
    `/api/changes?since=30d`, `/api/changes?since=30d&agent=${A()}`, '/api/agents', '/', '/?_rsc=1',
    `/_next/image?url=${encodeURIComponent(`/api/agents/${A()}`)}&w=64&q=75`,
  ];
  const headerSets: Record<string, string>[] = [
    { accept: 'text/html' },
    { rsc: '1' },
    { rsc: '1', 'next-router-prefetch': '1' },
    // A router state that says the client already holds the agent layout (whose check would be skipped if the guard were not in front).
    { rsc: '1', 'next-router-state-tree': heldLayout(otherAgent) },
    { rsc: '1', 'next-router-state-tree': heldLayout(ownerAgent) },
    { rsc: '1', 'next-router-state-tree': 'garbage' },
    {},
  ];

  it('no answer to B holds A\'s agent name or memory; nothing reaches A\'s pages', async () => {
    for (const target of variants()) {
      for (const extra of headerSets) {
        for (const query of ['', target.includes('?') ? '&_rsc=1' : '?_rsc=1']) {
          const reply = await raw(`${base}${target}${query}`, { headers: { cookie: cookies.other, ...extra } });
          const what = `${target}${query} ${JSON.stringify(extra)} → ${reply.status}`;
          expect(leaks(reply.text), `${what}: ${reply.text.slice(0, 300)}`).toBe(false);
          expect(reply.status, what).not.toBe(500);
        }
      }
    }
  }, 300_000);

  it('the owner sees its own agent through the same server (the probe would notice a leak)', async () => {
    const page = await raw(`${base}/agents/${ownerAgent}`, { headers: { cookie: cookies.owner, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(leaks(page.text)).toBe(true);
    const search = await raw(`${base}/api/search?q=${SECRET}`, { headers: { cookie: cookies.owner } });
    expect(search.text).toContain(SECRET);
  });

  it('an anonymous client gets nothing through encoded traversal under the public paths', async () => {
    for (const target of [
      '/_next/static/..%2f..%2fapi/agents', '/_next/static/%2e%2e/%2e%2e/api/agents', '/_next/static/..%5c..%5capi/agents',
      '/_next/static/chunks/..%2f..%2f..%2f..%2fpackage.json', '/_next/static/..%2f..%2fserver/app/page.js',
      '/favicon.svg/..%2fapi/agents', `/login/..%2fagents/${ownerAgent}`, `/login/..%2fapi/agents/${ownerAgent}`,
      `/_next/image?url=${encodeURIComponent('/api/agents')}&w=64&q=75`, '/_lineage/not-found', '/api', '/api/',
    ]) {
      for (const extra of [{}, { accept: 'text/html' }, { rsc: '1' }] as Record<string, string>[]) {
        const reply = await raw(`${base}${target}`, { headers: extra });
        expect(leaks(reply.text) || reply.text.includes(ownerAgent), `${target} → ${reply.status}: ${reply.text.slice(0, 200)}`).toBe(false);
        expect([303, 308, 400, 401, 404], `${target} ${JSON.stringify(extra)}`).toContain(reply.status);
      }
    }
  }, 120_000);
});

describe('a client navigation\'s router state that Next.js cannot read', () => {
  it('is a 400 that says so — on another tenant\'s agent, a path no route has, and one\'s own agent — not a 500', async () => {
    const malformed = ['garbage', '%E0%A4%A', encodeURIComponent(JSON.stringify(['', { children: ['__PAGE__', {}] }, null, null, true])), 'null'];
    for (const target of [`/agents/${ownerAgent}`, '/no-such-page', `/agents/${otherAgent}`, `/agents/${otherAgent}/no-such-view`, '/']) {
      for (const state of malformed) {
        const reply = await raw(`${base}${target}`, { headers: { cookie: cookies.other, rsc: '1', 'next-router-state-tree': state } });
        expect(reply.status, `${target} ${state}: ${reply.text.slice(0, 200)}`).toBe(400);
        expect(JSON.parse(reply.text).error).toMatch(/^malformed Next-Router-State-Tree header: /);
      }
    }
    // A state Next's client sends goes on: another tenant's agent is the not-found page, one's own is not refused.
    const foreign = await raw(`${base}/agents/${ownerAgent}`, { headers: { cookie: cookies.other, rsc: '1', 'next-router-state-tree': heldLayout(ownerAgent) } });
    expect(foreign.status).toBe(404);
    expect(leaks(foreign.text)).toBe(false);
    const own = await raw(`${base}/agents/${otherAgent}`, { headers: { cookie: cookies.other, rsc: '1', 'next-router-state-tree': heldLayout(otherAgent) } });
    expect(own.status, own.text.slice(0, 200)).toBeLessThan(400);
  });
});

describe('tenant B\'s key on tenant A\'s agent in the protocol', () => {
  const routes: [string, string][] = [
    ['GET', '/agents/ID'], ['GET', '/v1/agents/ID'], ['DELETE', '/agents/ID'], ['GET', '/agents/ID/snapshot'],
    ['PUT', '/agents/ID/snapshot'], ['POST', '/agents/ID/snapshot/upload'], ['GET', '/agents/ID/deltas?since=0'],
    ['POST', '/agents/ID/deltas?base_sequence=0'], ['POST', '/agents/ID/deltas/upload?base_sequence=0'], ['GET', '/agents/ID/restore'],
    ['GET', `/agents/ID/memory?q=${SECRET}`], ['GET', `/v1/agents/ID/memory?q=${SECRET}`],
  ];

  it('answers exactly what an id nobody holds gets, and A\'s agent is left as it was', async () => {
    const nobody = randomUUID();
    for (const [method, route] of routes) {
      const ask = async (id: string) => {
        const reply = await call(`${base}${route.replace('ID', id)}`, { method, key: keys.other, contentType: 'application/octet-stream', ...(method === 'GET' ? {} : { body: await snapshotBytes(id) }) });
        return { status: reply.status, text: reply.text.replaceAll(id, 'ID') };
      };
      const toOwner = await ask(ownerAgent);
      expect(toOwner, `${method} ${route}`).toEqual(await ask(nobody));
      expect(leaks(toOwner.text)).toBe(false);
    }
    const still = await call(`${base}/agents/${ownerAgent}`, { key: keys.owner });
    expect(still.status).toBe(200);
    expect(still.json).toMatchObject({ id: ownerAgent, name: OWNER_NAME, latest_sequence: 0 });
  }, 120_000);
});
