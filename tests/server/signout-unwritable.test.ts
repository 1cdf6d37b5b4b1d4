/**
 * Sign-out when the database does not take the ended session, against a real
 * `lineage serve --auth required` with its dashboard: another process holds the database's write
 * lock (as a `lineage backup`, a migration or a stuck writer would), so ending the session fails
 * with SQLITE_BUSY once the busy timeout passes. Before, that error escaped the sign-out handler
 * and the answer was a 500 that kept the browser's cookie. Now the cookie is cleared and the answer
 * is a 503 page saying the session was not ended on the server — which stays true: a copy of the
 * cookie still works until a sign-out the database takes.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '@/db/client';
import { raw, SIGNED_IN, signIn, withCookie } from './dashboard-http';
import { authRequiredServer } from './auth-required-server';
import type { ChildServer } from './harness';

let server: ChildServer;
let dataDir: string;
let key = '';

authRequiredServer('signout', (s) => ({ server, dataDir, key } = s));

describe('sign-out when the database cannot record it', () => {
  it('clears the cookie and answers a 503 page (not a 500); the session goes on until a sign-out the database takes', async () => {
    const cookie = await signIn(server.url, key);
    const copy = `${cookie}`;
    const writer = new Database(path.join(dataDir, DATABASE_FILE));
    let out;
    try {
      writer.exec('BEGIN IMMEDIATE');
      out = await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie } });
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    expect(out.status).toBe(503);
    expect(out.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(out.headers['set-cookie']![0]).toMatch(/^lineage_session=; .*Max-Age=0/);
    expect(out.text).toContain('the server could not end it');
    expect(out.text).toContain('<a href="/login">');
    expect(server.stderr()).toMatch(/sign-out could not end the session in the database/);

    // Nothing was recorded, and nothing claims it was: the copy still works, until a sign-out that is.
    expect(await withCookie(server.url, copy)).toEqual(SIGNED_IN);
    const again = await raw(`${server.url}/logout`, { method: 'POST', headers: { cookie: copy } });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/login?signed_out=1');
    expect(await withCookie(server.url, copy)).toEqual({ api: 401, page: 303, location: '/login?next=%2F' });
  }, 60_000);
});
