/**
 * The scale-out database out of space: the suite's database lives in a tablespace on a tiny tmpfs
 * (root only: mounts.ts), filled up to its last byte, so PostgreSQL answers its own `disk_full`
 * (SQLSTATE 53100, "could not extend file") to an upload — a 507 `disk_full` naming the database,
 * not a 500. Nothing of the upload is in the ledger, the server serves on, and the same upload is
 * taken once space is freed. The mapping without a mount: lib/ledger/storage-errors.test.ts.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, scaleOutEnv, usePostgres } from '@/tests/engines/use-engines';
import { snapshotBytes } from './archives';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';
import { mountTinyDisk } from './mounts';

const OCTET = 'application/octet-stream';
const name = `t_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
let mountDir = '';
let unmount: (() => void) | null = null;
let adminUrl = '';
let storage: LineageStorage | undefined;
let server: ChildServer | undefined;
let key = '';
const agent = randomUUID();

/** Writes a file on the tiny disk until it is full (ENOSPC). */
function fillDisk(): void {
  const fd = fs.openSync(path.join(mountDir, 'filler'), 'w');
  try {
    for (let chunk = 1 << 20; chunk >= 512;) {
      try {
        fs.writeSync(fd, Buffer.alloc(chunk));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        chunk >>= 1;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-pg-tiny-'));
  unmount = mountTinyDisk(mountDir, 64 * 1024 * 1024);
  if (unmount === null) return;
  const tablespaceDir = path.join(mountDir, 'ts');
  fs.mkdirSync(tablespaceDir);
  const { url: serverUrl, dir } = await usePostgres();
  if (dir === undefined) throw new Error('the run\'s PostgreSQL gave no directory: cannot tell which user owns its files');
  // The tablespace's directory must belong to the user PostgreSQL runs as (postgres.ts: `postgres` under root).
  const owner = fs.statSync(dir);
  fs.chownSync(tablespaceDir, owner.uid, owner.gid);
  adminUrl = serverUrl;
  await admin(async (client) => {
    await client.query(`CREATE TABLESPACE ${name} LOCATION '${tablespaceDir}'`);
    await client.query(`CREATE DATABASE ${name} TABLESPACE ${name}`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { bucket, settings } = await freshBucket();
  const env = scaleOutEnv(url.toString(), bucket, settings, { LINEAGE_DATA: tempDataDir() });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 't', now: new Date() })).key;
  server = await spawnServe(['--port', '0', '--no-ui'], env, 120_000);
  expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'full', source_runtime: 'openclaw' }) })).status).toBe(201);
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await storage?.close();
  if (unmount === null) return;
  fs.rmSync(path.join(mountDir, 'filler'), { force: true });
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`DROP TABLESPACE IF EXISTS ${name}`);
  });
  unmount();
  fs.rmSync(mountDir, { recursive: true, force: true });
}, 60_000);

describe('the database\'s disk full under a scale-out lineage serve', () => {
  it('an upload gets a 507 disk_full naming the database, nothing of it is in the ledger, the server serves on, and the upload is taken once space is freed', async (ctx) => {
    if (unmount === null) ctx.skip(); // not root: no tmpfs (the mapping itself: lib/ledger/storage-errors.test.ts)
    const snapshot = await snapshotBytes(agent, { records: 2000 });
    fillDisk();
    const full = await call(`${server!.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: snapshot });
    expect([full.status, full.json]).toEqual([507, {
      code: 'disk_full',
      error: 'the database has no space left (PostgreSQL disk_full, SQLSTATE 53100): free or add space on the database server\'s disk and retry (nothing was stored)',
    }]);
    expect(server!.child.exitCode).toBeNull();
    expect(server!.stderr()).not.toMatch(/\n\s+at /);
    expect(await storage!.listEntries({ agentId: agent })).toEqual([]);

    fs.rmSync(path.join(mountDir, 'filler'));
    const again = await call(`${server!.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: snapshot });
    expect([again.status, again.json.sequence]).toEqual([201, 0]);
    expect((await storage!.listEntries({ agentId: agent })).map((e) => e.seq)).toEqual([0]);
  });
});
