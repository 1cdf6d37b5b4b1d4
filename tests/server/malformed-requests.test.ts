/**
 * Requests no route should ever see whole, found by sweeping every route with malformed input: each
 * gets a 4xx with a JSON error that says what was wrong, and changes nothing. The protocol half runs
 * on an in-process server; the dashboard half on a `lineage serve` child with its dashboard.
 * bad-input.test.ts has the unreadable paths, hostile.test.ts the hostile uploads.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBytes } from './archives';
import { call, issueKey, spawnServe, spawnServer, startTestServer, stateFingerprint, tempDataDir, type ChildServer, type TestServer } from './harness';

const OCTET = 'application/octet-stream';

/** Writes `text` as it is on a fresh connection and reads the reply until the server closes it. */
function rawExchange(base: string, text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let out = '';
    socket.on('data', (chunk) => {
      out += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.end(text);
  });
}

/** Status, headers (lower-case names) and JSON body of a raw reply. */
function parseReply(text: string): { status: number; headers: Record<string, string>; json: any } {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let rest = body;
    body = '';
    for (let size = parseInt(rest, 16); size > 0; size = parseInt(rest, 16)) {
      const start = rest.indexOf('\r\n') + 2;
      body += rest.slice(start, start + size);
      rest = rest.slice(start + size + 2);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, json };
}

/** One GET with this exact request target (`fetch` would normalise `..` away, or refuse `*`). */
function getTarget(base: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(base, { path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the protocol server', () => {
  let t: TestServer;
  const agent = randomUUID();
  beforeAll(async () => {
    t = await startTestServer();
    await call(`${t.url}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) });
    expect((await call(`${t.url}/agents/${agent}/snapshot`, { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Requests Node's HTTP parser refuses before any route: it answered them with a bare status line. */
  const UNPARSABLE: { name: string; request: () => string; status: number; error: RegExp }[] = [
    { name: 'a header over the size limit', request: () => `GET /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431, error: /headers \(its URL included\) exceed \d+ bytes/ },
    { name: 'a 100 KB URL', request: () => `GET /v1/agents/${agent}/restore?x=${'9'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, status: 431, error: /shorter URL/ },
    { name: 'two Content-Length headers', request: () => `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, status: 400, error: /^malformed HTTP request: / },
    { name: 'a Content-Length that is not a number', request: () => `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}`, status: 400, error: /^malformed HTTP request: / },
    { name: 'a broken chunked body', request: () => `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, status: 400, error: /^malformed HTTP request: / },
    { name: 'a body shorter than its Content-Length', request: () => `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.keyA}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":`, status: 400, error: /finished sending before the whole request arrived/ },
    { name: 'bytes that are not HTTP', request: () => '\u0000\u0001 hello\r\n\r\n', status: 400, error: /^malformed HTTP request: / },
  ];

  it.each(UNPARSABLE)('$name: $status with a JSON error', async ({ request, status, error }) => {
    const before = stateFingerprint(t.dataDir);
    const reply = parseReply(await rawExchange(t.url, request()));
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toEqual({ error: expect.stringMatching(error) });
    expect(stateFingerprint(t.dataDir)).toEqual(before);
    expect((await call(`${t.url}/agents/${agent}`, { key: t.keyA })).status).toBe(200);
  });

  it('an absolute-form target is served as its path when it names this server, a 421 when it names another, and `*` is a 400', async () => {
    const port = new URL(t.url).port;
    const asked = (target: string) => rawExchange(t.url, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.keyA}\r\nConnection: close\r\n\r\n`).then(parseReply);
    const own = await asked(`http://127.0.0.1:${port}/v1/agents/${agent}`);
    expect(own.status).toBe(200);
    expect(own.json.id).toBe(agent);
    const foreign = await asked('http://evil.example/v1/agents');
    expect(foreign.status).toBe(421);
    expect(foreign.json.error).toMatch(/evil\.example/);
    const star = await asked('*');
    expect(star.status).toBe(400);
    expect(star.json.error).toMatch(/must be a path/);
  });

  it.each(['/v1/agents', '/agents/{id}', '/v1/agents/{id}/restore', '/v1/agents/{id}/deltas?since=0', '/v1/agents/{id}/memory'])('HEAD %s is served as GET without its body', async (target) => {
    const url = `${t.url}${target.replace('{id}', agent)}`;
    const get = await call(url, { key: t.keyA });
    const head = await call(url, { method: 'HEAD', key: t.keyA });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(get.status).toBe(200);
  });

  it('HEAD on a route that has no GET is a 405 whose Allow names what it takes', async () => {
    const reply = await call(`${t.url}/v1/agents/${agent}/deltas/upload?base_sequence=0`, { method: 'HEAD', key: t.keyA });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    const patch = await call(`${t.url}/v1/agents`, { method: 'PATCH', key: t.keyA });
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  /** A query parameter given twice: which one was meant cannot be told. */
  const REPEATED: { name: string; method?: string; target: () => string; body?: () => Promise<Uint8Array> }[] = [
    { name: 'restore up_to_sequence', target: () => `/v1/agents/${agent}/restore?up_to_sequence=0&up_to_sequence=0` },
    { name: 'deltas since', target: () => `/agents/${agent}/deltas?since=0&since=5` },
    { name: 'delta base_sequence', method: 'POST', target: () => `/v1/agents/${agent}/deltas?base_sequence=0&base_sequence=0`, body: () => snapshotBytes(agent) },
    { name: 'presigned delta base_sequence', method: 'POST', target: () => `/v1/agents/${agent}/deltas/upload?base_sequence=0&base_sequence=1` },
  ];

  it.each(REPEATED)('$name given twice is a 400 naming it', async ({ method, target, body }) => {
    const before = stateFingerprint(t.dataDir);
    const reply = await call(`${t.url}${target()}`, { method, key: t.keyA, contentType: body ? OCTET : undefined, body: body ? await body() : undefined });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/is given 2 times; give it once/);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no Content-Type', undefined],
  ])('registering with %s is a 415 and registers nothing', async (_name, contentType) => {
    const before = stateFingerprint(t.dataDir);
    const reply = await call(`${t.url}/v1/agents`, { method: 'POST', key: t.keyA, contentType, body: Buffer.from(JSON.stringify({ id: randomUUID(), name: 'x', source_runtime: 'openclaw' })) });
    expect(reply.status).toBe(415);
    expect(reply.json.error).toMatch(/expected Content-Type application\/json, got /);
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });
});

describe('a client that hangs up in the middle of its upload', () => {
  let server: ChildServer;
  let dataDir: string;
  afterAll(async () => {
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is not logged as an internal error, changes nothing, and the server goes on', async () => {
    dataDir = tempDataDir();
    const key = issueKey(dataDir);
    server = await spawnServer(dataDir);
    const agent = randomUUID();
    await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) });
    expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
    const before = stateFingerprint(dataDir);
    const { hostname, port } = new URL(server.url);
    for (const target of [`/v1/agents/${agent}/deltas?base_sequence=0`, `/v1/agents/${agent}/snapshot`]) {
      const method = target.endsWith('snapshot') ? 'PUT' : 'POST';
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), hostname, () => {
          socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${OCTET}\r\nContent-Length: 1000000\r\n\r\n`);
          socket.write(Buffer.alloc(64 * 1024));
          // Long enough for the handler to be reading the body when the client goes.
          setTimeout(() => socket.destroy(), 300);
        });
        socket.on('close', () => resolve());
        socket.on('error', () => undefined);
      });
    }
    expect((await call(`${server.url}/v1/agents/${agent}`, { key })).json.latest_sequence).toBe(0);
    expect(stateFingerprint(dataDir)).toEqual(before);
    expect(server.stderr()).not.toMatch(/internal error/);
  });
});

describe('the dashboard API', () => {
  let server: ChildServer;
  let base: string;
  let dataDir: string;
  const agent = randomUUID();

  beforeAll(async () => {
    dataDir = tempDataDir();
    const key = issueKey(dataDir);
    server = await spawnServe(['--port', '0', '--data', dataDir], {}, 900_000);
    base = server.url;
    await call(`${base}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) });
    expect((await call(`${base}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent) })).status).toBe(201);
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every route handler under app/api, its dynamic segments filled in. */
  function apiRoutes(dir = path.resolve(process.cwd(), 'app/api'), prefix = '/api'): string[] {
    const out: string[] = [];
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('_')) out.push(...apiRoutes(path.join(dir, entry.name), `${prefix}/${entry.name}`));
      else if (entry.name === 'route.ts') out.push(prefix);
    }
    return out.map((p) => p.replace('[id]', agent).replace('[recordId]', randomUUID()).replace('[seq]', '0').replace('/[[...path]]', '/nope'));
  }

  it('another method than GET on any API route is a JSON 405 with Allow, and changes nothing', async () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(18);
    const before = stateFingerprint(dataDir);
    for (const route of routes) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const reply = await call(`${base}${route}`, { method, contentType: 'application/json', body: method === 'DELETE' ? undefined : '{}' });
        expect(reply.status, `${method} ${route}`).toBe(405);
        expect(reply.headers.get('allow'), `${method} ${route}`).toBe('GET, HEAD');
        expect(reply.json, `${method} ${route}`).toEqual({ error: `method ${method} not allowed on ${route}: the dashboard API is read-only (GET)` });
      }
    }
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('another method than GET on a page is a JSON 405 too (no page rendered, no server action looked for)', async () => {
    const before = stateFingerprint(dataDir);
    for (const page of ['/', '/search?q=fact', `/agents/${agent}`, `/agents/${agent}/workspace`, `/agents/${agent}/sequences/0`, '/no-such-page']) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const reply = await call(`${base}${page}`, { method, contentType: 'text/plain;charset=UTF-8', body: '[]', headers: { accept: 'text/html', 'next-action': '7f'.padEnd(42, '0') } });
        expect(reply.status, `${method} ${page}`).toBe(405);
        expect(reply.headers.get('allow'), `${method} ${page}`).toBe('GET, HEAD');
        expect(reply.json.error, `${method} ${page}`).toBe(`method ${method} not allowed on ${page.split('?')[0]}: the dashboard's pages are only read (GET); sign in and out with POST /login and POST /logout`);
      }
    }
    expect(stateFingerprint(dataDir)).toEqual(before);
    expect(server.stderr()).not.toMatch(/Server Action|Error:/);
  });

  it.each(['/api', '/api/nope', `/api/agents/${agent}/nope`, `/api/agents/${agent}/sequences/0/nope/deeper`, `/api/agents/../at`, `/api/agents/%2e%2e/at`])(
    'GET %s, no route: a JSON 404 naming the endpoint, not an HTML page',
    async (target) => {
      const reply = await getTarget(base, target);
      expect(reply.status).toBe(404);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(reply.text)).toEqual({ error: expect.stringMatching(/^no such API endpoint: GET \/api/) });
    },
  );

  /** Times that are not ones: `Date.parse` read them (2026-02-30 as 2 March, `1` as 2001). */
  const NOT_TIMES = ['2026-02-30', '2026-02-29T10:00:00Z', '2026-13-45', '2026-11-20T24:00:00Z', '2026-11-20T10:00:00+24:00', '1', '-1', 'Dec 25 2026'];

  it.each(NOT_TIMES)('time=%s is a 400 on /at and on /api/changes?since=', async (time) => {
    const at = await call(`${base}/api/agents/${agent}/at?time=${encodeURIComponent(time)}`);
    expect(at.status, at.text).toBe(400);
    expect(at.json.error).toMatch(/ISO 8601/);
    const changes = await call(`${base}/api/changes?since=${encodeURIComponent(time)}`);
    expect(changes.status, changes.text).toBe(400);
    expect(changes.json.error).toMatch(/cannot read .* as a time/);
  });

  it.each(['2024-02-29', '2026-05-01T00:00:00Z', '2026-05-01T02:00:00+02:00', '2026-05-01 00:00'])('time=%s is read', async (time) => {
    const at = await call(`${base}/api/agents/${agent}/at?time=${encodeURIComponent(time)}`);
    expect(at.status, at.text).toBe(200);
    expect((await call(`${base}/api/changes?since=${encodeURIComponent(time)}`)).status).toBe(200);
  });

  it.each([
    `/api/agents/${agent}/workspace?seq=0&seq=0`,
    `/api/agents/${agent}/records?at=0&at=1`,
    `/api/agents/${agent}/compare?from=0&to=0&to=0`,
    '/api/changes?op=create&op=delete',
    '/api/search?q=fact&q=other',
    `/api/search?q=fact&agent=${agent}&agent=${agent}`,
  ])('GET %s, a parameter given twice: a 400 naming it', async (target) => {
    const reply = await call(`${base}${target}`);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.error).toMatch(/^The parameter “[a-z]+” is given more than once; give it once\.$/);
  });

  it.each([
    [`/api/agents/{id}/records?limit=99999999999999999999`, 'The page size (limit) must be at most 1000.'],
    [`/api/agents/{id}/sequences?before=9007199254740993`, 'The sequence to page before (before) must be at most 9007199254740991.'],
    ['/api/search?q=fact&offset=9007199254740991', 'offset must be at most 999999999999999, got "9007199254740991"'],
    // The search's own page size (8bd5008): a limit past it is said with it, however many digits.
    ['/api/search?q=fact&limit=99999999999999999999', 'limit must be at most 500 (later appearances per page), got "99999999999999999999"; page with offset for more'],
    ['/api/search?q=fact&limit=501', 'limit must be at most 500 (later appearances per page), got "501"; page with offset for more'],
  ])('GET %s, a number too large: one sentence, with its own bound', async (target, error) => {
    const reply = await call(`${base}${target.replace('{id}', agent)}`);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error });
  });
});
