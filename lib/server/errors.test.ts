/** The HTTP answers of ledger errors that are not the client's fault but must still say what happened. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { BlobConflictError } from '@/lib/ledger/s3-blob-store';
import { LedgerError } from '@/lib/ledger/errors';
import { DATABASE_TIMEOUT_WORDS } from '@/lib/ledger/unreachable-storage';
import { errorResponse } from './api-errors';
import { errorToResponse } from './errors';

const bodyOf = (response: { body: Uint8Array | null }) =>
  JSON.parse(new TextDecoder().decode(response.body ?? new Uint8Array())) as Record<string, unknown>;

describe('errorToResponse', () => {
  it('a blob key holding other bytes is a 409 blob_conflict naming both sha256s, not blob_corrupt', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = errorToResponse(new BlobConflictError('a/1-0011.alf-delta', 'aa'.repeat(32), 'bb'.repeat(32)));
    expect(log).toHaveBeenCalledOnce();
    log.mockRestore();
    expect(response.status).toBe(409);
    const body = bodyOf(response);
    expect(body.code).toBe('blob_conflict');
    expect(body.error).toContain('aa'.repeat(32));
    expect(body.error).toContain('bb'.repeat(32));
  });

  it('a damaged blob stays a 500 blob_corrupt naming the entry', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = errorToResponse(new LedgerError('blob_corrupt', 'blob of a at 3 is damaged', { agentId: 'a', sequence: 3 }));
    log.mockRestore();
    expect(response.status).toBe(500);
    expect(bodyOf(response)).toMatchObject({ code: 'blob_corrupt', agent_id: 'a', sequence: 3 });
  });

  it('the scale-out engines out of reach are a 503 busy with Retry-After on the protocol and the dashboard API, not a 500', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // What `pg` and the S3 SDK throw: a terminated backend (SQLSTATE 57P01), a connection that died
    // (no code), a connection not made in time, a refused socket, a gateway answering 503.
    const cases: [unknown, string][] = [
      [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), 'the database could not be reached; retry shortly'],
      [new Error('Connection terminated unexpectedly'), 'the database could not be reached; retry shortly'],
      // A new pooled connection not made within the URL's connect_timeout (db/pg/connect-timeout.ts): pg's own words.
      [new Error('timeout expired'), 'the database could not be reached; retry shortly'],
      // A statement not answered within LINEAGE_DATABASE_READ_SECONDS (db/pg/client.ts): pg's own words.
      [new Error('Query read timeout'), 'the database could not be reached; retry shortly'],
      // A statement PostgreSQL cancelled past the pool's lock_timeout (a lock another transaction holds; db/pg/lock-wait.test.ts).
      [Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }), 'the database cancelled a statement that waited too long for a lock another request or process holds; retry shortly'],
      [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'the storage could not be reached; retry shortly'],
      [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', $metadata: {} }), 'the object store could not be reached; retry shortly'],
      [Object.assign(new Error('Service Unavailable'), { $metadata: { httpStatusCode: 503 } }), 'the object store could not be reached; retry shortly'],
    ];
    for (const [error, words] of cases) {
      const protocol = errorToResponse(error);
      expect([protocol.status, bodyOf(protocol), protocol.headers?.['retry-after']]).toEqual([503, { error: words, code: 'busy' }, '5']);
      const api = errorResponse(error);
      expect([api.status, await api.json(), api.headers.get('retry-after')]).toEqual([503, { error: words, code: 'busy' }, '5']);
    }
    // A query the database refused for its own reason is no outage.
    expect(errorResponse(Object.assign(new Error('syntax error'), { code: '42601' })).status).toBe(500);
    log.mockRestore();
  });

  it('a statement PostgreSQL cancelled past its statement_timeout while it ran is a 504 database_timeout without Retry-After on both, not busy', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const error = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const protocol = errorToResponse(error);
    expect([protocol.status, bodyOf(protocol), protocol.headers?.['retry-after']]).toEqual([504, { error: DATABASE_TIMEOUT_WORDS, code: 'database_timeout' }, undefined]);
    const api = errorResponse(error);
    expect([api.status, await api.json(), api.headers.get('retry-after')]).toEqual([504, { error: DATABASE_TIMEOUT_WORDS, code: 'database_timeout' }, null]);
    // Also as a LedgerError (a storage verb that wrapped it).
    const ledger = errorToResponse(new LedgerError('database_timeout', DATABASE_TIMEOUT_WORDS));
    expect([ledger.status, bodyOf(ledger)]).toEqual([504, { error: DATABASE_TIMEOUT_WORDS, code: 'database_timeout' }]);
    log.mockRestore();
  });

  it('SQLite\'s own busy, full and read-only errors are answered alike by the protocol and the dashboard API (503 + Retry-After, 507, 503), not a 500', async () => {
    // Real errors of better-sqlite3: a write lock another connection holds, a database at its page
    // limit, a database opened read-only (what a read that folds the history index would meet).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-sqlite-errors-'));
    const file = path.join(dir, 'x.db');
    const caught = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      throw new Error('expected an error');
    };
    const db = new Database(file);
    db.exec('CREATE TABLE t (v BLOB)');
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const busy = caught(() => new Database(file, { timeout: 0 }).exec('INSERT INTO t VALUES (1)'));
    holder.exec('ROLLBACK');
    holder.close();
    db.pragma('max_page_count = 4');
    const full = caught(() => db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024)));
    db.close();
    const readOnly = caught(() => new Database(file, { readonly: true }).exec('INSERT INTO t VALUES (1)'));
    fs.rmSync(dir, { recursive: true, force: true });
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const cases: [unknown, number, string, RegExp][] = [
      [busy, 503, 'busy', /^another process holds the write lock of the database in the data directory \(an index rebuild\?\); retry shortly$/],
      [full, 507, 'disk_full', /^no space left on the disk holding the data directory: free some space and retry \(nothing was stored\)$/],
      [readOnly, 503, 'read_only', /^the data directory cannot be written \(SQLITE_READONLY\): make it writable/],
    ];
    for (const [error, status, code, words] of cases) {
      const protocol = errorToResponse(error);
      const api = errorResponse(error);
      const apiBody = await api.json() as Record<string, unknown>;
      expect([protocol.status, bodyOf(protocol).code]).toEqual([status, code]);
      expect(bodyOf(protocol).error).toMatch(words);
      expect([api.status, apiBody, api.headers.get('retry-after')]).toEqual([protocol.status, bodyOf(protocol), protocol.headers?.['retry-after'] ?? null]);
    }
    log.mockRestore();
  });

  it('a busy ledger (an index rebuild) is the same 503 busy with Retry-After on the protocol and the dashboard API', async () => {
    const busy = new LedgerError('busy', 'the history index is being rebuilt in this process; retry when it finishes');
    const protocol = errorToResponse(busy);
    const api = errorResponse(busy);
    expect([api.status, await api.json(), api.headers.get('retry-after')])
      .toEqual([protocol.status, bodyOf(protocol), protocol.headers?.['retry-after']]);
    expect(api.status).toBe(503);
  });
});
