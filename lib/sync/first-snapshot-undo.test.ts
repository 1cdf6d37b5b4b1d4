/**
 * Which answers to a first snapshot undo the agent's registration (first-snapshot-undo.ts), over HTTP:
 * a refusal of the whole upload — a 4xx, a 503, a 507, the server's or a proxy's — has the agent this
 * target registered deleted again (while it holds nothing); a proxy's 502 or 504, after which the
 * server may still be storing what was sent, keeps it (no DELETE is sent), as does a lost connection.
 * A real server behind a real proxy that answers the snapshot's PUT itself with the status asked.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlfApiClient } from '@/lib/client/alf-api';
import { snapshotBytes } from '@/tests/server/archives';
import { startTestServer, type TestServer } from '@/tests/server/harness';
import { httpTarget } from './http-target';

let t: TestServer;
let proxy: http.Server;
let proxyUrl = '';
/** What the proxy answers a snapshot's PUT with (null: the socket closed, no answer); the rest it passes on. */
let answer: number | null = 502;
/** The requests the proxy saw: `METHOD path`. */
const seen: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  proxy = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      seen.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
      if (req.method === 'PUT' && /\/snapshot$/.test(req.url ?? '')) {
        if (answer === null) return res.destroy();
        res.writeHead(answer, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: `the proxy's ${answer}` }));
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
      const passed = await fetch(new URL(req.url ?? '/', t.url), { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
      res.writeHead(passed.status, Object.fromEntries(passed.headers));
      res.end(Buffer.from(await passed.arrayBuffer()));
    })().catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await t.close();
});

/** The agents the server lists for key A. */
async function listed(): Promise<string[]> {
  return (await new AlfApiClient({ baseUrl: t.url, apiKey: t.keyA }).listAgents()).map((a) => a.id);
}

describe('a first snapshot refused, by the answer: the registration undone only when the upload was refused whole', () => {
  it.each([
    [400, 'removed'], [413, 'removed'], [503, 'removed'], [507, 'removed'],
    [502, 'kept'], [504, 'kept'], [null, 'kept'],
  ] as const)('answered %s: the agent this sync registered is %s', async (status, fate) => {
    answer = status;
    seen.length = 0;
    const agent = randomUUID();
    const target = httpTarget({ baseUrl: proxyUrl, apiKey: t.keyA, command: 'lineage sync' });
    expect(await target.ensureAgent({ id: agent, name: `answered ${status}`, runtime: 'openclaw' })).toMatchObject({ alreadyExisted: false });
    const refused = await target.putSnapshot(agent, await snapshotBytes(agent, { records: 1 })).then(() => null, (e: unknown) => e);
    expect(refused).toMatchObject({ code: status === null ? 'server_unreachable' : 'sync_upload_failed' });
    const deletes = seen.filter((request) => request.startsWith('DELETE '));
    if (fate === 'removed') {
      expect(await listed()).not.toContain(agent);
      expect(deletes).toEqual([`DELETE /agents/${agent}`]);
    } else {
      expect(await listed()).toContain(agent);
      expect(deletes).toEqual([]);
    }
  });
});
