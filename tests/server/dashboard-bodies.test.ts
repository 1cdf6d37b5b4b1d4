/**
 * The dashboard's door (lib/server/dashboard-guard.ts, sign-in.ts) on a `lineage serve` child with
 * its dashboard and sign-in required: a sign-in form that stops arriving is a JSON 408 and its
 * connection closed (LINEAGE_BODY_IDLE_SECONDS), an oversized one is refused as soon as it passes
 * 8 KiB, and what the guard's refusals repeat of the request is cut (an agent id at 80 characters, a path at 200).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from './dashboard-http';
import { issueKey, spawnServe, tempDataDir, type ChildServer } from './harness';

/** Sends `head` and `body` on a fresh connection, never ending it; the reply text once the server closes it. */
function stalled(base: string, head: string, body: string): Promise<{ text: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    let closedByServer = false;
    const giveUp = setTimeout(() => socket.destroy(), 30_000);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text, closedByServer });
    });
    socket.on('error', reject);
    socket.write(head + body);
  });
}

describe('the dashboard door', () => {
  let server: ChildServer;
  let dataDir: string;
  let key: string;
  beforeAll(async () => {
    dataDir = tempDataDir();
    key = issueKey(dataDir);
    server = await spawnServe(['--port', '0', '--data', dataDir, '--auth', 'required'], { LINEAGE_BODY_IDLE_SECONDS: '1' }, 900_000);
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a sign-in form that stops arriving is a JSON 408, the connection closed, no session issued', async () => {
    const { hostname, port } = new URL(server.url);
    const head = `POST /login HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 200\r\n\r\n`;
    const reply = await stalled(server.url, head, `key=${encodeURIComponent(key)}`);
    expect(reply.closedByServer).toBe(true);
    expect(reply.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply.text).not.toMatch(/set-cookie/i);
    expect(reply.text).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    // The body is sent chunked: its one chunk is the JSON.
    expect(JSON.parse(/\{.*\}/s.exec(reply.text)![0])).toEqual({
      error: 'no byte of the request body arrived for 1 s: the request was dropped and nothing of it was stored; send it again',
    });
  });

  it('a sign-in form over 8 KiB is refused without a session', async () => {
    const reply = await raw(`${server.url}/login`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `key=${key}&pad=${'x'.repeat(64 * 1024)}`,
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('sign-in form too large\n');
    expect(reply.headers['set-cookie']).toBeUndefined();
  });

  it('a sign-in form that arrives whole still signs in', async () => {
    const reply = await raw(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key, next: '/' }).toString() });
    expect(reply.status).toBe(303);
    expect(reply.headers['set-cookie']?.[0]).toMatch(/^lineage_session=/);
  });

  it('the guard\'s 404 cuts a 10,000-character agent id to 80 characters, its 405 the path to 200', async () => {
    const long = 'q'.repeat(10_000);
    const missing = await raw(`${server.url}/api/agents/${long}`, { headers: { authorization: `Bearer ${key}` } });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toEqual({ error: `agent ${'q'.repeat(80)}… (9920 more characters) not found` });
    const short = await raw(`${server.url}/api/agents/${randomUUID()}/nope`, { headers: { authorization: `Bearer ${key}` } });
    expect(JSON.parse(short.text).error).toMatch(/^agent [0-9a-f-]{36} not found$/);
    const method = await raw(`${server.url}/api/${long}`, { method: 'PUT', headers: { authorization: `Bearer ${key}` } });
    expect(method.status).toBe(405);
    expect(JSON.parse(method.text).error).toBe(`method PUT not allowed on /api/${'q'.repeat(195)}… (9805 more characters): the dashboard API is read-only (GET)`);
  });
});
