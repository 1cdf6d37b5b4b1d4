/**
 * Sign-out on the scale-out storage: two real `lineage serve --auth required` processes with the
 * dashboard on one PostgreSQL database and one radosgw bucket (a session made by one is accepted by
 * the other). A session signed out at B is refused by A too — the ended session is in PostgreSQL,
 * not in B's memory — while another session of the same key goes on at both.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { raw, signIn } from './dashboard-http';
import { spawnServe, tempDataDir, type ChildServer } from './harness';

let storage: LineageStorage;
let key = '';
let a: ChildServer;
let b: ChildServer;
const dirs: string[] = [];

beforeAll(async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const dataDir = () => {
    const dir = tempDataDir();
    dirs.push(dir);
    return dir;
  };
  const env = scaleOutEnv(databaseUrl, bucket, settings, { LINEAGE_BLOB_URL: `s3://${bucket}/signout`, LINEAGE_DATA: dataDir() });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 'signout', now: new Date() })).key;
  a = await spawnServe(['--port', '0', '--auth', 'required'], env, 900_000);
  b = await spawnServe(['--port', '0', '--auth', 'required'], { ...env, LINEAGE_DATA: dataDir() }, 300_000);
}, 1_200_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await storage?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** The API's status and where the home page sends a browser holding `cookie` (null: shown). */
async function withCookie(server: ChildServer, cookie: string): Promise<{ api: number; page: number; location: string | null }> {
  const api = await raw(`${server.url}/api/agents`, { headers: { cookie } });
  const page = await raw(`${server.url}/`, { headers: { cookie, accept: 'text/html' } });
  return { api: api.status, page: page.status, location: page.headers.location ?? null };
}

const SIGNED_IN = { api: 200, page: 200, location: null };
const SIGNED_OUT = { api: 401, page: 303, location: '/login?next=%2F' };

describe('sign-out on two processes sharing one PostgreSQL', () => {
  it('a session made at A and signed out at B is refused by both; another session of the key goes on at both', async () => {
    const cookie = await signIn(a.url, key);
    const other = await signIn(a.url, key);
    expect(await withCookie(a, cookie)).toEqual(SIGNED_IN);
    expect(await withCookie(b, cookie)).toEqual(SIGNED_IN);

    const out = await raw(`${b.url}/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);

    expect(await withCookie(a, cookie)).toEqual(SIGNED_OUT);
    expect(await withCookie(b, cookie)).toEqual(SIGNED_OUT);
    expect(await withCookie(a, other)).toEqual(SIGNED_IN);
    expect(await withCookie(b, other)).toEqual(SIGNED_IN);
  });
});
