/** The HTTP answers of ledger errors that are not the client's fault but must still say what happened. */
import { describe, expect, it, vi } from 'vitest';
import { BlobConflictError } from '@/lib/ledger/s3-blob-store';
import { LedgerError } from '@/lib/ledger/errors';
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
});
