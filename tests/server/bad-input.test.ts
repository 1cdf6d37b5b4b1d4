/**
 * Input no route can read is a 400, never a 500 (issue 18 §7): `%ZZ` or a NUL in a path (checked
 * before any route, the protocol's or the dashboard's), and a NUL in a search query. The
 * 10,000-deep upload is in unservable.test.ts.
 */
import { useProcessStorage } from '@/lib/storage/open';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from './harness';
import { guardHeaders } from '@/lib/server/scope-header';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('unreadable paths', () => {
  it.each(['/agents/%ZZ', '/v1/agents/%ZZ/restore', '/v1/blobs/a/%E0%A4%A?exp=1&sig=x', '/api/agents/%ZZ/records', '/agents/x/memories/%', '/search%ZZ'])('%s is a 400', async (p) => {
    const reply = await call(`${t.url}${p}`, { key: t.keyA });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/malformed percent-encoding/);
  });

  it('a NUL in a path is a 400', async () => {
    const reply = await call(`${t.url}/agents/abc%00def/snapshot`, { key: t.keyA });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/NUL/);
  });

  it('a well-formed escape still reaches its route', async () => {
    expect((await call(`${t.url}/agents/%61bc`, { key: t.keyA })).status).toBe(404);
  });
});

describe('a NUL in the search query', () => {
  it('GET /api/search?q=… with a NUL is a 400 saying so', async () => {
    process.env.LINEAGE_DATA = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-nul-'));
    useProcessStorage(undefined);
    const { GET } = await import('@/app/api/search/route');
    const res = await GET(new Request('http://localhost/api/search?q=abc%00def', { headers: guardHeaders(undefined) }), undefined);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/NUL/);
    const ok = await GET(new Request('http://localhost/api/search?q=abcdef', { headers: guardHeaders(undefined) }), undefined);
    expect(ok.status).toBe(200);
  });
});
