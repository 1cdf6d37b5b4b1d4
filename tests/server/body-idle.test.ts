/**
 * A request body that stops arriving: no byte for LINEAGE_BODY_IDLE_SECONDS and the request is
 * answered with a JSON 408, its connection closed, nothing stored — a direct upload, a presigned
 * upload's PUT (which stays unacknowledged: its confirm finds no bytes) and a registration alike.
 * A slow upload that keeps sending, taking several idle periods in all, is stored as any other, and
 * so is one that takes longer than the whole-request limit (LINEAGE_REQUEST_SECONDS, Node's
 * `requestTimeout` before: 300 s cut a 256 MiB snapshot on a slow link while its bytes kept coming).
 * Against a `lineage serve` child, so the client's pauses and the server's timer run in two processes.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBytes } from './archives';
import { call, issueKey, listFiles, spawnServer, stateFingerprint, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const IDLE_SECONDS = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Exchange {
  status: number;
  headers: Record<string, string>;
  json: any;
  /** The server closed the connection (the client never did). */
  closedByServer: boolean;
}

/**
 * Sends a request's head and `pieces` of its body, `gapMs` apart, and keeps the connection open
 * (the client never ends it); resolves with the reply once the server closes the connection, or
 * after `giveUpMs` with what arrived until then.
 */
function exchange(base: string, head: { method: string; path: string; headers: Record<string, string> }, pieces: Uint8Array[], gapMs: number, giveUpMs = 30_000): Promise<Exchange> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    let closedByServer = false;
    const done = () => {
      clearTimeout(giveUp);
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let json: unknown;
      try {
        json = JSON.parse(text.slice(split + 4));
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, json, closedByServer });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
      done();
    }, giveUpMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('close', done);
    socket.on('error', reject);
    const lines = [`${head.method} ${head.path} HTTP/1.1`, `host: ${hostname}:${port}`, ...Object.entries(head.headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    void (async () => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        socket.write(piece);
        await sleep(gapMs);
      }
    })();
  });
}

/** `bytes` cut into `n` pieces. */
function piecesOf(bytes: Uint8Array, n: number): Uint8Array[] {
  const size = Math.ceil(bytes.byteLength / n);
  return Array.from({ length: n }, (_, i) => bytes.subarray(i * size, (i + 1) * size)).filter((p) => p.byteLength > 0);
}

interface Served { server: ChildServer; dataDir: string; key: string; agent: string }

/** A `lineage serve` child with `env` and one registered agent. */
async function serveWithAgent(env: Record<string, string>): Promise<Served> {
  const dataDir = tempDataDir();
  const key = issueKey(dataDir);
  const server = await spawnServer(dataDir, env);
  const agent = randomUUID();
  const body = JSON.stringify({ id: agent, name: 'idle', source_runtime: 'openclaw' });
  expect((await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body })).status).toBe(201);
  return { server, dataDir, key, agent };
}

/** A snapshot PUT of `bytes` for `t.agent`, sending `pieces` of them `gapMs` apart. */
function putSnapshot(t: Served, bytes: Uint8Array, pieces: Uint8Array[], gapMs: number, headers: Record<string, string> = {}): Promise<Exchange> {
  return exchange(t.server.url, {
    method: 'PUT', path: `/v1/agents/${t.agent}/snapshot`,
    headers: { authorization: `Bearer ${t.key}`, 'content-type': OCTET, 'content-length': String(bytes.byteLength), ...headers },
  }, pieces, gapMs);
}

describe('request bodies that stop arriving', () => {
  let server: ChildServer;
  let dataDir: string;
  let key: string;
  let agent: string;
  beforeAll(async () => {
    ({ server, dataDir, key, agent } = await serveWithAgent({ LINEAGE_BODY_IDLE_SECONDS: String(IDLE_SECONDS) }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a snapshot upload that stops halfway is a JSON 408, the connection closed, nothing stored', async () => {
    const bytes = await snapshotBytes(agent);
    const before = stateFingerprint(dataDir);
    const reply = await putSnapshot({ server, dataDir, key, agent }, bytes, [bytes.subarray(0, Math.floor(bytes.byteLength / 2))], 0);
    expect(reply).toMatchObject({ status: 408, closedByServer: true, headers: { 'content-type': 'application/json', connection: 'close' } });
    expect(reply.json).toEqual({ error: `no byte of the request body arrived for ${IDLE_SECONDS} s: the request was dropped and nothing of it was stored; send it again` });
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('a registration whose JSON stops arriving is a 408 and registers nothing', async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify({ id, name: 'never', source_runtime: 'openclaw' }));
    const reply = await exchange(server.url, {
      method: 'POST', path: '/agents',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.byteLength) },
    }, [body.subarray(0, 10)], 0);
    expect(reply).toMatchObject({ status: 408, closedByServer: true });
    expect((await call(`${server.url}/agents/${id}`, { key })).status).toBe(404);
  });

  it('a presigned upload\'s PUT that stops halfway is a 408 and stays unacknowledged: its confirm finds no bytes', async () => {
    const init = await call(`${server.url}/v1/agents/${agent}/snapshot/upload`, { method: 'POST', key, contentType: 'application/json' });
    expect(init.status).toBe(200);
    const bytes = await snapshotBytes(agent);
    const before = stateFingerprint(dataDir);
    const uploadPath = new URL(init.json.upload_url as string);
    const reply = await exchange(server.url, {
      method: 'PUT', path: uploadPath.pathname + uploadPath.search,
      headers: { 'content-type': OCTET, 'content-length': String(bytes.byteLength) },
    }, [bytes.subarray(0, 100)], 0);
    expect(reply).toMatchObject({ status: 408, closedByServer: true });
    // Only the upload's record: no bytes, not even a partial file.
    expect(listFiles(path.join(dataDir, 'uploads')).map((f) => f.split(':')[0])).toEqual([`${init.json.snapshot_id}.json`]);
    const confirm = await call(`${server.url}/v1/agents/${agent}/snapshot/upload/${init.json.snapshot_id}/confirm`, { method: 'POST', key });
    expect(confirm.status).toBe(400);
    expect(confirm.json.error).toMatch(/has no bytes yet/);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('a slow upload that keeps sending is stored, though it takes more than two idle periods in all', async () => {
    const bytes = await snapshotBytes(agent);
    // A piece every tenth of the idle limit, 25 pieces: 2.5 idle periods from first to last.
    const reply = await putSnapshot({ server, dataDir, key, agent }, bytes, piecesOf(bytes, 25), (IDLE_SECONDS * 1000) / 10, { connection: 'close' });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ sequence: 0, size_bytes: bytes.byteLength });
    const restore = await call(`${server.url}/v1/agents/${agent}/restore`, { key });
    expect(restore.json.snapshot).toMatchObject({ sequence: 0 });
  });
});

describe('a long upload under a whole-request limit (LINEAGE_REQUEST_SECONDS)', () => {
  let t: Served;
  beforeAll(async () => {
    t = await serveWithAgent({ LINEAGE_BODY_IDLE_SECONDS: String(IDLE_SECONDS), LINEAGE_REQUEST_SECONDS: '1' });
  });
  afterAll(async () => {
    await t?.server.stop();
  });

  it('an upload whose bytes keep coming is stored, though it takes more than the whole-request limit', async () => {
    const bytes = await snapshotBytes(t.agent);
    // A piece every tenth of the idle limit, 25 pieces: 2.5 times the whole-request limit.
    const reply = await putSnapshot(t, bytes, piecesOf(bytes, 25), (IDLE_SECONDS * 1000) / 10, { connection: 'close' });
    expect([reply.status, reply.json]).toMatchObject([201, { sequence: 0, size_bytes: bytes.byteLength }]);
  });

  it('an upload that stops is still cut by the idle limit: a 408, the connection closed, nothing stored', async () => {
    const bytes = await snapshotBytes(t.agent);
    const before = stateFingerprint(t.dataDir);
    const reply = await putSnapshot(t, bytes, piecesOf(bytes, 4).slice(0, 2), 100);
    expect(reply).toMatchObject({ status: 408, closedByServer: true });
    expect(reply.json).toEqual({ error: `no byte of the request body arrived for ${IDLE_SECONDS} s: the request was dropped and nothing of it was stored; send it again` });
    expect(stateFingerprint(t.dataDir)).toEqual(before);
  });

  it('a body the server does not read that keeps trickling after the reply is still cut by the whole-request limit', async () => {
    const reply = await exchange(t.server.url, {
      method: 'GET', path: `/v1/agents/${t.agent}`,
      headers: { authorization: `Bearer ${t.key}`, 'content-length': '1000' },
    // Still trickling when the client gives up (a byte every 100 ms for 10 s, giving up at 8 s): only the limit can close it.
    }, Array.from({ length: 100 }, () => new Uint8Array(1)), 100, 8000);
    expect(reply).toMatchObject({ status: 200, closedByServer: true });
  });
});
