/**
 * A deleted agent's id belongs to the tenant that deleted it: another API key that registers it
 * (POST /agents) gets the very answer it gets for an id another tenant holds — 409 `agent_id_taken`,
 * the same words — so it cannot tell a deleted id from a live one, nor take over the id (and with it
 * the leftovers doctor keeps apart as the deletion's). The owner registers it again, and so may the
 * local owner (no API key: a `--data` sync, who sees every tenant). Both backends,
 * through the real HTTP server: a data directory, and PostgreSQL 15 + radosgw.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { snapshotBytes } from './archives';
import { call, tempDataDir } from './harness';

const dirs: string[] = [];
const servers: LineageServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function embeddedServer(): Promise<LineageServer> {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  return createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined });
}

async function scaleOutServer(): Promise<LineageServer> {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'svc' };
  const storage = scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, location), client, location });
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  return createLineageServer({ dataDir, storage, secret: randomBytes(32), port: 0, ui: false, log: () => undefined });
}

describe.each([['a data directory', embeddedServer], ['PostgreSQL + S3', scaleOutServer]])('on %s', (_name, start) => {
  it('another tenant registering a deleted id is answered as for an id another tenant holds; the owner registers it again', async () => {
    const server = await start();
    servers.push(server);
    const { storage } = server.service;
    const owner = (await storage.createApiKey({ name: 'owner', now: new Date() })).key;
    const other = (await storage.createApiKey({ name: 'other', now: new Date() })).key;
    const register = (key: string, id: string) => call(`${server.url}/agents`, {
      method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'agent', source_runtime: 'openclaw' }),
    });
    const [deleted, live] = [randomUUID(), randomUUID()];
    for (const id of [deleted, live]) expect((await register(owner, id)).status).toBe(201);
    const put = await call(`${server.url}/agents/${deleted}/snapshot`, { method: 'PUT', key: owner, contentType: 'application/octet-stream', body: await snapshotBytes(deleted) });
    expect(put.status).toBe(201);
    expect((await call(`${server.url}/agents/${deleted}`, { method: 'DELETE', key: owner })).status).toBe(200);

    const held = await register(other, live);
    const taken = await register(other, deleted);
    expect(held.status).toBe(409);
    expect(taken.status).toBe(held.status);
    expect(taken.json).toEqual(JSON.parse(JSON.stringify(held.json).split(live).join(deleted)));
    expect(taken.json).toMatchObject({ code: 'agent_id_taken' });
    // The upper-case form of the id is the same id.
    expect((await register(other, deleted.toUpperCase())).json).toMatchObject({ code: 'agent_id_taken' });
    expect(await storage.getAgent({ agentId: deleted })).toBeNull();
    expect((await call(`${server.url}/agents/${deleted}`, { key: other })).status).toBe(404);

    const again = await register(owner, deleted);
    expect(again.status, again.text).toBe(201);
    expect((await call(`${server.url}/agents/${deleted}`, { key: owner })).json).toMatchObject({ id: deleted });
    expect((await call(`${server.url}/agents/${deleted}`, { key: other })).status).toBe(404);

    // The local owner (`lineage sync --data`, or on the storage itself: no API key) sees every tenant and may take it.
    expect((await call(`${server.url}/agents/${deleted}`, { method: 'DELETE', key: owner })).status).toBe(200);
    expect((await register(other, deleted)).json).toMatchObject({ code: 'agent_id_taken' });
    expect(await storage.registerAgent({ id: deleted, name: 'local', sourceRuntime: null, tenantId: null, now: new Date() })).toMatchObject({ id: deleted, tenant_id: null });
  }, 120_000);
});
