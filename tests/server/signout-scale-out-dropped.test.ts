/**
 * Sign-out on the scale-out storage when PostgreSQL drops the connection that would record the
 * ended session (a restart, an operator's pg_terminate_backend, a failover), against a real
 * `lineage serve --auth required` with its dashboard. The test holds the `ended_sessions` table
 * locked, so the sign-out waits inside its statement, then terminates that very backend: no timing.
 * Before, the storage error became a JSON 503 and the browser kept its cookie; now the cookie is
 * cleared and the answer is a 503 page saying the session was not ended on the server.
 */
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { raw, SIGNED_IN, signIn, withCookie } from './dashboard-http';
import { spawnServe, tempDataDir, type ChildServer } from './harness';

let databaseUrl = '';
let storage: LineageStorage;
let server: ChildServer;
let key = '';
let dataDir = '';

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  databaseUrl = url;
  dataDir = tempDataDir();
  const env = scaleOutEnv(url, bucket, settings, { LINEAGE_BLOB_URL: `s3://${bucket}/signout`, LINEAGE_DATA: dataDir });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 'signout', now: new Date() })).key;
  server = await spawnServe(['--port', '0', '--auth', 'required'], env, 900_000);
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  await storage?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('sign-out when PostgreSQL drops its connection', () => {
  it('clears the cookie and answers a 503 page (not a JSON error); the session goes on until a sign-out the database takes', async () => {
    const cookie = await signIn(server.url, key);
    const holder = new pg.Client(databaseUrl);
    await holder.connect();
    let out;
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE ended_sessions IN ACCESS EXCLUSIVE MODE');
      const signOut = raw(`${server.url}/logout`, { method: 'POST', headers: { cookie } });
      let waiting: number | undefined;
      while (waiting === undefined) {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
        waiting = rows[0]?.pid;
      }
      await holder.query('SELECT pg_terminate_backend($1)', [waiting]);
      await holder.query('COMMIT');
      out = await signOut;
    } finally {
      await holder.end();
    }
    expect(out.status).toBe(503);
    expect(out.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);
    expect(out.text).toContain('the server could not end it');
    expect(server.stderr()).toMatch(/sign-out could not end the session in the database/);

    // Nothing was recorded: the session still works (the process serves on), until a sign-out that is.
    expect(await withCookie(server.url, cookie)).toEqual(SIGNED_IN);
    expect((await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie } })).status).toBe(303);
    expect(await withCookie(server.url, cookie)).toEqual({ api: 401, page: 303, location: '/login?next=%2F' });
  }, 120_000);
});
