/**
 * Under `lineage serve` the dashboard's route handlers run in Next's bundle while the storage they
 * call was opened by the server: a LedgerError it throws comes from the server's copy of
 * lib/ledger/errors.ts. It must still be answered with its 4xx, not a 500 "internal error".
 */
import { describe, expect, it, vi } from 'vitest';
import { LedgerError } from '@/lib/ledger/errors';

describe('a LedgerError from another copy of the module', () => {
  it('maps to its status in the dashboard API and still is a LedgerError there', async () => {
    const fromServer = new LedgerError('sequence_out_of_range', 'sequence 999 is outside 0..5', { latest: 5 });
    vi.resetModules();
    const bundle = await import('@/lib/server/api-errors');
    const bundled = await import('@/lib/ledger/errors');
    expect(bundled.LedgerError).not.toBe(LedgerError);
    expect(fromServer instanceof bundled.LedgerError).toBe(true);
    expect(bundled.isLedgerError(fromServer, 'sequence_out_of_range')).toBe(true);
    const res = bundle.errorResponse(fromServer);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'sequence 999 is outside 0..5' });
    expect(new Error('plain') instanceof bundled.LedgerError).toBe(false);
  });
});
