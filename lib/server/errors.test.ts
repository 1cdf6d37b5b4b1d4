/** The HTTP answers of ledger errors that are not the client's fault but must still say what happened. */
import { describe, expect, it, vi } from 'vitest';
import { BlobConflictError } from '@/lib/ledger/s3-blob-store';
import { LedgerError } from '@/lib/ledger/errors';
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

  it('a busy ledger (an index rebuild) is the same 503 busy with Retry-After on the protocol and the dashboard API', async () => {
    const busy = new LedgerError('busy', 'the history index is being rebuilt in this process; retry when it finishes');
    const protocol = errorToResponse(busy);
    const api = errorResponse(busy);
    expect([api.status, await api.json(), api.headers.get('retry-after')])
      .toEqual([protocol.status, bodyOf(protocol), protocol.headers?.['retry-after']]);
    expect(api.status).toBe(503);
  });
});
