/**
 * A client that asks for a download and stops reading it: once its reply has begun and no byte has
 * left for LINEAGE_SOCKET_IDLE_SECONDS, the connection is closed (before, it stayed open, the reply's
 * bytes held in the server's memory, for as long as the client liked). A reader that keeps reading,
 * however slowly, gets every byte; a request whose reply is not begun yet (its body arriving within
 * the body's own limit) is not cut. Against a `lineage serve` child.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBytes } from './archives';
import { call, issueKey, spawnServer, tempDataDir, type ChildServer } from './harness';

const IDLE_SECONDS = 1;
/** Incompressible bytes in the snapshot: far more than loopback's socket buffers take while nobody reads. */
const RAW_BYTES = 48 * 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Download {
  /** Bytes of the reply's body the client read in all. */
  body: number;
  /** The server ended the connection (the client never did, before `giveUpMs`). */
  closedByServer: boolean;
  head: string;
}

/**
 * GETs `target` on a raw connection and reads the reply's head. Then, with `stallMs`, reads nothing
 * for that long and reads on; else reads at most `perCycle` bytes every `cycleMs`. Resolves once the
 * server ends the connection, or the whole body (`expected` bytes) came, or `giveUpMs` passed.
 * (A server that closes a stalled connection has its last bytes and its FIN wait in the kernel's
 * buffers: the client sees the end only once it reads again.)
 */
function download(base: string, target: string, pace: { stallMs?: number; perCycle?: number; cycleMs?: number; expected: number; giveUpMs: number }): Promise<Download> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let raw = Buffer.alloc(0);
    let head = '';
    let body = 0;
    let cycle = 0;
    let closedByServer = false;
    let finished = false;
    let pacer: NodeJS.Timeout | undefined;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(giveUp);
      clearInterval(pacer);
      socket.destroy();
      resolve({ body, closedByServer, head });
    };
    const giveUp = setTimeout(done, pace.giveUpMs);
    socket.on('data', (chunk: Buffer) => {
      if (!head) {
        raw = Buffer.concat([raw, chunk]);
        const split = raw.indexOf('\r\n\r\n');
        if (split < 0) return;
        head = raw.subarray(0, split).toString('latin1');
        chunk = raw.subarray(split + 4);
        if (pace.stallMs !== undefined) {
          socket.pause();
          setTimeout(() => socket.resume(), pace.stallMs);
        }
      }
      body += chunk.byteLength;
      cycle += chunk.byteLength;
      if (body >= pace.expected) return done();
      if (pace.perCycle !== undefined && cycle >= pace.perCycle) socket.pause();
    });
    if (pace.perCycle !== undefined) {
      pacer = setInterval(() => {
        cycle = 0;
        socket.resume();
      }, pace.cycleMs);
    }
    socket.on('end', () => {
      closedByServer = true;
      done();
    });
    socket.on('error', () => {
      closedByServer = true;
      done();
    });
    socket.write(`GET ${target} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n\r\n`);
  });
}

describe('a reply the client stops reading', () => {
  let server: ChildServer;
  let key: string;
  let snapshotUrl: URL;
  let size: number;
  const agent = randomUUID();
  beforeAll(async () => {
    const dataDir = tempDataDir();
    key = issueKey(dataDir);
    server = await spawnServer(dataDir, { LINEAGE_SOCKET_IDLE_SECONDS: String(IDLE_SECONDS), LINEAGE_BODY_IDLE_SECONDS: String(IDLE_SECONDS * 4) });
    const body = JSON.stringify({ id: agent, name: 'stalled', source_runtime: 'openclaw' });
    expect((await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body })).status).toBe(201);
    const bytes = await snapshotBytes(agent, { rawBytes: RAW_BYTES });
    size = bytes.byteLength;
    const put = await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: 'application/octet-stream', body: bytes });
    expect(put.status).toBe(201);
    const link = await call(`${server.url}/v1/agents/${agent}/snapshot`, { key });
    snapshotUrl = new URL(link.json.snapshot_url as string);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('is closed by the server once no byte has left for the idle limit, and the server goes on serving', async () => {
    const stalled = await download(server.url, snapshotUrl.pathname + snapshotUrl.search, { stallMs: IDLE_SECONDS * 3000, expected: size, giveUpMs: 60_000 });
    expect(stalled.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(stalled.closedByServer).toBe(true);
    // What the kernel's buffers held when the server gave up, not the reply.
    expect(stalled.body).toBeLessThan(size);
    expect((await call(`${server.url}/agents/${agent}`, { key })).status).toBe(200);
  });

  it('is not cut while the client keeps reading, however slowly', async () => {
    // 4 MiB every half idle period: the reply takes several idle periods in all.
    const slow = await download(server.url, snapshotUrl.pathname + snapshotUrl.search, { perCycle: 4 * 1024 * 1024, cycleMs: (IDLE_SECONDS * 1000) / 2, expected: size, giveUpMs: 120_000 });
    expect(slow.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(slow.head.toLowerCase()).toContain(`content-length: ${size}`);
    expect(slow).toMatchObject({ body: size, closedByServer: false });
  });

  it('a request whose reply has not begun is not cut: its body may pause longer than the socket limit, within its own', async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify({ id, name: 'paused', source_runtime: 'openclaw' }));
    const { hostname, port } = new URL(server.url);
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), hostname);
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
      socket.write(`POST /agents HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`);
      socket.write(body.subarray(0, 10));
      void sleep(IDLE_SECONDS * 2500).then(() => socket.write(body.subarray(10)));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 201 /);
    expect((await call(`${server.url}/agents/${id}`, { key })).status).toBe(200);
  });
});
