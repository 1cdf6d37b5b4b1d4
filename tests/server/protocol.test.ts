import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlfApiClient } from '@/lib/client/alf-api';
import { deltaBytes, snapshotBytes } from './archives';
import { call, startTestServer, type TestServer } from './harness';

const GOLDEN = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/alf/fixtures/captured/openclaw-memory-dto.golden.json'), 'utf8'));
const OCTET = 'application/octet-stream';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe.each(['', '/v1'])('ALF protocol under prefix "%s"', (prefix) => {
  const base = () => `${t.url}${prefix}`;
  const agentUrl = (id: string, rest = '') => `${base()}/agents/${id}${rest}`;
  const register = (id: string, key = t.keyA) =>
    call(`${base()}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'Atlas', source_runtime: 'openclaw' }) });

  it('registers an agent: 201 AgentInfo without layer_counts, then 409 for the same id', async () => {
    const id = randomUUID();
    const created = await register(id);
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toContain('application/json');
    expect(created.json).toEqual({ id, name: 'Atlas', source_runtime: 'openclaw', created_at: expect.any(String), latest_sequence: 0 });
    const again = await register(id);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatch(/already exists/);
  });

  it('refuses malformed registrations with 400 and a message', async () => {
    const noName = await call(`${base()}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: randomUUID() }) });
    expect(noName.status).toBe(400);
    expect(noName.json.error).toMatch(/name/);
    const badId = await call(`${base()}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id: 'nope', name: 'x', source_runtime: 'openclaw' }) });
    expect(badId.status).toBe(400);
    expect(badId.json.error).toMatch(/UUID/);
    const notJson = await call(`${base()}/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: '{' });
    expect(notJson.status).toBe(400);
  });

  it('gets an agent with latest_sequence 0 and zero layer_counts before any sync; 404 when unknown', async () => {
    const id = randomUUID();
    await register(id);
    const got = await call(agentUrl(id), { key: t.keyA });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ id, latest_sequence: 0, layer_counts: { credentials: 0, principals: 0, identity: 0 } });
    expect((await call(agentUrl(randomUUID()), { key: t.keyA })).status).toBe(404);
    expect((await call(agentUrl('not-a-uuid'), { key: t.keyA })).json.error).toMatch(/not found/);
  });

  it('stores a snapshot (201 at sequence 0), serves it byte-exact, counts its layers', async () => {
    const id = randomUUID();
    await register(id);
    const bytes = await snapshotBytes(id, { credentials: 2 });
    const put = await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: bytes });
    expect(put.status).toBe(201);
    expect(put.json).toEqual({ snapshot_id: expect.any(String), sequence: 0, size_bytes: bytes.byteLength, blob_key: expect.any(String) });
    const link = await call(agentUrl(id, '/snapshot'), { key: t.keyA });
    expect(link.status).toBe(200);
    expect(link.json).toEqual({ snapshot_url: expect.stringMatching(/^http:\/\/.+sig=/), snapshot_id: put.json.snapshot_id, sequence: 0 });
    const download = await fetch(link.json.snapshot_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe(OCTET);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    const info = await call(agentUrl(id), { key: t.keyA });
    expect(info.json.layer_counts).toEqual({ credentials: 2, principals: 1, identity: 1 });
  });

  it('appends deltas with compare-and-set: 201 on the latest base, 409 + X-Latest-Sequence otherwise', async () => {
    const id = randomUUID();
    await register(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id) });
    const d1 = await deltaBytes(id, 0, 1);
    const ok = await call(agentUrl(id, '/deltas?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: OCTET, body: d1 });
    expect(ok.status).toBe(201);
    expect(ok.json).toEqual({ delta_id: expect.any(String), sequence: 1, size_bytes: d1.byteLength });
    const stale = await call(agentUrl(id, '/deltas?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: OCTET, body: d1 });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('x-latest-sequence')).toBe('1');
    expect(stale.json).toMatchObject({ error: expect.stringMatching(/latest sequence 1/), latest_sequence: 1 });
    const missing = await call(agentUrl(id, '/deltas'), { method: 'POST', key: t.keyA, contentType: OCTET, body: d1 });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatch(/base_sequence/);
    const negative = await call(agentUrl(id, '/deltas?base_sequence=-1'), { method: 'POST', key: t.keyA, contentType: OCTET, body: d1 });
    expect(negative.status).toBe(400);
    const info = await call(agentUrl(id), { key: t.keyA });
    expect(info.json.latest_sequence).toBe(1);
  });

  it('restores head and point-in-time; 400 beyond latest; 404 never synced; deltas?since', async () => {
    const id = randomUUID();
    await register(id);
    const never = await call(agentUrl(id, '/restore'), { key: t.keyA });
    expect(never.status).toBe(404);
    const snap = await snapshotBytes(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: snap });
    const deltas: Uint8Array[] = [];
    for (let n = 0; n < 3; n += 1) {
      const bytes = await deltaBytes(id, n, n + 1);
      deltas.push(bytes);
      expect((await call(agentUrl(id, `/deltas?base_sequence=${n}`), { method: 'POST', key: t.keyA, contentType: OCTET, body: bytes })).status).toBe(201);
    }
    const head = await call(agentUrl(id, '/restore'), { key: t.keyA });
    expect(head.status).toBe(200);
    expect(head.json.snapshot).toEqual({ url: expect.any(String), snapshot_id: expect.any(String), sequence: 0 });
    expect(head.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual([1, 2, 3]);
    for (const [i, link] of head.json.deltas.entries()) {
      expect(link).toEqual({ url: expect.any(String), sequence: i + 1, size_bytes: deltas[i]!.byteLength, created_at: expect.any(String) });
      const got = Buffer.from(await (await fetch(link.url)).arrayBuffer());
      expect(got.equals(Buffer.from(deltas[i]!))).toBe(true);
    }
    expect(Buffer.from(await (await fetch(head.json.snapshot.url)).arrayBuffer()).equals(Buffer.from(snap))).toBe(true);
    const pit = await call(agentUrl(id, '/restore?up_to_sequence=2'), { key: t.keyA });
    expect(pit.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual([1, 2]);
    const beyond = await call(agentUrl(id, '/restore?up_to_sequence=99'), { key: t.keyA });
    expect(beyond.status).toBe(400);
    expect(beyond.json).toEqual({ error: "up_to_sequence 99 exceeds agent's latest sequence 3" });
    const since = await call(agentUrl(id, '/deltas?since=1'), { key: t.keyA });
    expect(since.status).toBe(200);
    expect(since.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual([2, 3]);
    expect((await call(agentUrl(id, '/deltas?since=3'), { key: t.keyA })).json).toEqual({ deltas: [] });
  });

  it('serves the memory DTO with the golden key set', async () => {
    const id = randomUUID();
    await register(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id, { records: 2 }) });
    await call(agentUrl(id, '/deltas?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(id, 0, 7) });
    const memory = await call(agentUrl(id, '/memory'), { key: t.keyA });
    expect(memory.status).toBe(200);
    expect(memory.json).toHaveLength(3);
    for (const dto of memory.json) {
      for (const key of GOLDEN.profile.dto_keys) expect(dto).toHaveProperty(key);
      expect(typeof dto.source_sequence).toBe('number');
    }
    expect(memory.json.find((d: { content: string }) => d.content === 'delta fact 7').source_sequence).toBe(1);
  });

  it('lists only the caller\'s agents', async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    await register(mine);
    await register(theirs, t.keyB);
    const list = await call(`${base()}/agents`, { key: t.keyA });
    expect(list.status).toBe(200);
    const ids = list.json.agents.map((a: { id: string }) => a.id);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(theirs);
    expect(list.json.agents[0]).toMatchObject({ id: expect.any(String), name: expect.any(String), latest_sequence: expect.any(Number) });
  });

  it('deletes an agent with its blobs: 200 {deleted, objects_removed}, then 404 everywhere', async () => {
    const id = randomUUID();
    await register(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id) });
    await call(agentUrl(id, '/deltas?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(id, 0, 1) });
    const link = (await call(agentUrl(id, '/snapshot'), { key: t.keyA })).json.snapshot_url;
    const deleted = await call(agentUrl(id), { method: 'DELETE', key: t.keyA });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ deleted: true, objects_removed: 2 });
    expect((await call(agentUrl(id), { key: t.keyA })).status).toBe(404);
    expect((await call(agentUrl(id), { method: 'DELETE', key: t.keyA })).status).toBe(404);
    expect((await fetch(link)).status).toBe(404);
  });

  it('answers unknown endpoints with 404 JSON and wrong methods with 405', async () => {
    const unknown = await call(`${base()}/agents/${randomUUID()}/nope`, { key: t.keyA });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatch(/no such endpoint/);
    const wrong = await call(`${base()}/agents`, { method: 'PATCH', key: t.keyA });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });
});

describe('presigned-style uploads (bundles over 6,000,000 bytes)', () => {
  const agentUrl = (id: string, rest = '') => `${t.url}/v1/agents/${id}${rest}`;
  const registerAndSnapshot = async (id: string) => {
    await call(`${t.url}/v1/agents`, { method: 'POST', key: t.keyA, contentType: 'application/json', body: JSON.stringify({ id, name: 'big', source_runtime: 'openclaw' }) });
  };

  it('initiate → PUT without auth → confirm stores the exact bytes; restore returns them', async () => {
    const id = randomUUID();
    await registerAndSnapshot(id);
    const big = await snapshotBytes(id, { rawBytes: 6_200_000 });
    expect(big.byteLength).toBeGreaterThan(6_000_000);
    const init = await call(agentUrl(id, '/snapshot/upload'), { method: 'POST', key: t.keyA, contentType: 'application/json' });
    expect(init.status).toBe(200);
    expect(init.json).toEqual({ upload_url: expect.stringMatching(/^http:\/\/.+\/v1\/uploads\/.+sig=/), snapshot_id: expect.any(String) });
    const put = await fetch(init.json.upload_url, { method: 'PUT', headers: { 'content-type': OCTET }, body: big as BodyInit });
    expect(put.status).toBe(200);
    const confirm = await call(agentUrl(id, `/snapshot/upload/${init.json.snapshot_id}/confirm`), { method: 'POST', key: t.keyA });
    expect(confirm.status).toBe(201);
    expect(confirm.json).toMatchObject({ sequence: 0, size_bytes: big.byteLength, snapshot_id: expect.any(String) });
    const again = await call(agentUrl(id, `/snapshot/upload/${init.json.snapshot_id}/confirm`), { method: 'POST', key: t.keyA });
    // Idempotent (issue 18 §6): the same reply, no second entry.
    expect(again.status).toBe(201);
    expect(again.json).toEqual(confirm.json);
    const restore = await call(agentUrl(id, '/restore'), { key: t.keyA });
    const bytes = Buffer.from(await (await fetch(restore.json.snapshot.url)).arrayBuffer());
    expect(bytes.equals(Buffer.from(big))).toBe(true);
  });

  it('the client picks the presigned flow above 6,000,000 bytes for snapshots and deltas', async () => {
    const id = randomUUID();
    const client = new AlfApiClient({ baseUrl: `${t.url}/v1/`, apiKey: t.keyA });
    await client.register({ id, name: 'c', source_runtime: 'openclaw' });
    const big = await snapshotBytes(id, { rawBytes: 6_100_000 });
    expect((await client.putSnapshot(id, big)).sequence).toBe(0);
    const bigDelta = await deltaBytes(id, 0, 1, { rawBytes: 6_100_000 });
    expect(bigDelta.byteLength).toBeGreaterThan(6_000_000);
    expect((await client.pushDelta(id, 0, bigDelta)).sequence).toBe(1);
    const plan = await client.restore(id);
    expect(Buffer.from(await client.download(plan.deltas[0]!.url)).equals(Buffer.from(bigDelta))).toBe(true);
    await expect(client.pushDelta(id, 0, bigDelta)).rejects.toMatchObject({ name: 'SyncConflictError', latest: 1 });
  });

  it('delta upload initiate checks the base (409 + X-Latest-Sequence); confirm re-checks it', async () => {
    const id = randomUUID();
    await registerAndSnapshot(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id) });
    const stale = await call(agentUrl(id, '/deltas/upload?base_sequence=5'), { method: 'POST', key: t.keyA, contentType: 'application/json' });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('x-latest-sequence')).toBe('0');
    const init = await call(agentUrl(id, '/deltas/upload?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: 'application/json' });
    expect(init.status).toBe(200);
    expect(init.json).toEqual({ upload_url: expect.any(String), delta_id: expect.any(String) });
    expect((await fetch(init.json.upload_url, { method: 'PUT', headers: { 'content-type': OCTET }, body: await deltaBytes(id, 0, 1) as BodyInit })).status).toBe(200);
    // Someone else moves the agent on before the confirm.
    await call(agentUrl(id, '/deltas?base_sequence=0'), { method: 'POST', key: t.keyA, contentType: OCTET, body: await deltaBytes(id, 0, 2) });
    const confirm = await call(agentUrl(id, `/deltas/upload/${init.json.delta_id}/confirm`), { method: 'POST', key: t.keyA });
    expect(confirm.status).toBe(409);
    expect(confirm.headers.get('x-latest-sequence')).toBe('1');
  });

  it('refuses tampered, unsigned and expired upload URLs with 403, and confirm without bytes with 400', async () => {
    const id = randomUUID();
    await registerAndSnapshot(id);
    const init = await call(agentUrl(id, '/snapshot/upload'), { method: 'POST', key: t.keyA });
    const url = new URL(init.json.upload_url);
    const body = await snapshotBytes(id);
    const put = (u: string) => fetch(u, { method: 'PUT', headers: { 'content-type': OCTET }, body: body as BodyInit });
    const tamperedSig = new URL(url);
    tamperedSig.searchParams.set('sig', '0'.repeat(64));
    expect((await put(tamperedSig.toString())).status).toBe(403);
    const laterExpiry = new URL(url);
    laterExpiry.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 3600));
    expect((await put(laterExpiry.toString())).status).toBe(403);
    expect((await put(`${url.origin}${url.pathname}`)).status).toBe(403);
    const expired = t.server.service.signer.sign('PUT', url.pathname, -60, new Date());
    const expiredReply = await put(`${url.origin}${expired}`);
    expect(expiredReply.status).toBe(403);
    expect(await expiredReply.json()).toEqual({ error: 'signed URL has expired' });
    const otherPath = t.server.service.signer.sign('GET', url.pathname, 60, new Date());
    expect((await put(`${url.origin}${otherPath}`)).status).toBe(403);
    const confirm = await call(agentUrl(id, `/snapshot/upload/${init.json.snapshot_id}/confirm`), { method: 'POST', key: t.keyA });
    expect(confirm.status).toBe(400);
    expect(confirm.json.error).toMatch(/no bytes/);
  });

  it('refuses tampered download URLs with 403', async () => {
    const id = randomUUID();
    await registerAndSnapshot(id);
    await call(agentUrl(id, '/snapshot'), { method: 'PUT', key: t.keyA, contentType: OCTET, body: await snapshotBytes(id) });
    const link = new URL((await call(agentUrl(id, '/snapshot'), { key: t.keyA })).json.snapshot_url);
    const other = new URL(link);
    other.pathname = link.pathname.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0'));
    expect((await fetch(other)).status).toBe(403);
    const expired = t.server.service.signer.sign('GET', link.pathname, -1, new Date());
    expect((await fetch(`${link.origin}${expired}`)).status).toBe(403);
    expect((await fetch(link)).status).toBe(200);
  });
});
