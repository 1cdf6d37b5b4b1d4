/**
 * ingest-base.ts: the times a delta's base is compared with (to the nanosecond, any offset), and the
 * embedded ingest's re-check inside its transaction: a snapshot stored at the delta's base sequence
 * after the delta's checks (the head replaced under it) refuses the delta, which was built before
 * that snapshot existed. The two machines end to end: tests/server/two-machines.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { supersedeArchives } from './testing/superseded-archives';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { historyIndexer, ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { randomBytes } from 'node:crypto';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { writeZip, jsonDocument } from '@/lib/core/archive/zip-write';
import { compareTimes, entryCreatedAt, snapshotCreatedAt } from './ingest-base';
import { isLedgerError, listEntries, registerAgent, type Ledger } from './index';
import type { EntryIndexer } from './ingest';

const AGENT = '7b0f3c2e-1111-4a2b-8c3d-0000000000b5';

describe('compareTimes', () => {
  it('orders RFC 3339 times as instants, to the nanosecond, whatever their offsets and fractions', () => {
    expect(compareTimes('2026-05-03T10:00:00.123456788Z', '2026-05-03T10:00:00.123456789Z')).toBeLessThan(0);
    expect(compareTimes('2026-05-03T12:00:00.123456789+02:00', '2026-05-03T10:00:00.123456789Z')).toBe(0);
    expect(compareTimes('2026-05-03T10:00:00.1Z', '2026-05-03T10:00:00.100000000Z')).toBe(0);
    expect(compareTimes('2026-05-03T10:00:00Z', '2026-05-03T09:59:59.999999999Z')).toBeGreaterThan(0);
    expect(compareTimes('2026-05-03t05:00:00-05:00', '2026-05-03T10:00:00Z')).toBe(0);
    // Past nine digits: what chrono keeps (nanoseconds).
    expect(compareTimes('2026-05-03T10:00:00.1234567891Z', '2026-05-03T10:00:00.123456789Z')).toBe(0);
    expect(compareTimes('yesterday', '2026-05-03T10:00:00Z')).toBeNull();
  });
});

describe('snapshotCreatedAt', () => {
  it('reads the manifest only: a snapshot whose other members would not inflate still gives its created_at', async () => {
    const { snapshot: make } = supersedeArchives(AGENT);
    const bytes = Buffer.from(await make('2026-05-03T10:00:00.123456789+02:00', `# A\n${randomBytes(64 * 1024).toString('base64')}\n`));
    // The raw file's data, past its local header (its name's first place in the archive).
    const at = bytes.indexOf('raw/openclaw/MEMORY.md') + 'raw/openclaw/MEMORY.md'.length + 4096;
    bytes[at] = bytes[at]! ^ 0xff;
    await expect(readZip(bytes, resolveLimits())).rejects.toThrow(/MEMORY\.md/);
    expect(await snapshotCreatedAt(bytes)).toBe('2026-05-03T10:00:00.123456789+02:00');
  });
});

describe('entryCreatedAt', () => {
  it('a delta\'s delta-manifest.json created_at, or its manifest.json as an older writer named it; a snapshot\'s manifest.json', async () => {
    const { snapshot: makeSnapshot, delta: makeDelta } = supersedeArchives(AGENT);
    expect(await entryCreatedAt(await makeDelta(0, '2026-05-03T10:00:00.123456789Z', 1), 'delta')).toBe('2026-05-03T10:00:00.123456789Z');
    const legacy = await writeZip([{ name: 'manifest.json', data: jsonDocument({ alf_version: '1.0.0', created_at: '2026-05-04T00:00:00Z', agent: { id: AGENT }, sync: { base_sequence: 0 } }) }]);
    expect(await entryCreatedAt(legacy, 'delta')).toBe('2026-05-04T00:00:00Z');
    expect(await entryCreatedAt(await makeSnapshot('2026-05-05T00:00:00+02:00', '# A\n'), 'snapshot')).toBe('2026-05-05T00:00:00+02:00');
  });
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const { snapshot, delta } = supersedeArchives(AGENT);

async function agentWithDeltaAtOne(): Promise<Ledger> {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  registerAgent({ ledger: t.ledger, id: AGENT, name: 'race', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
  await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes: await snapshot('2026-05-01T00:00:00Z', '# A\n'), now: new Date('2026-05-01T00:00:00Z') });
  await ingestDelta({ ledger: t.ledger, agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00Z', 1), now: new Date('2026-05-02T00:00:00Z') });
  return t.ledger;
}

describe('the embedded ingest re-checks the head inside its transaction', () => {
  it('a snapshot stored at the base sequence after the delta\'s checks, before its commit: the delta is refused, nothing of it stored', async () => {
    const ledger = await agentWithDeltaAtOne();
    // Machine B's --force-first-sync arrives while A's delta is between its checks and its commit:
    // at the ingest's own wait for the index (it folds pending entries there), the snapshot is stored.
    let replaced = false;
    const indexer: EntryIndexer = {
      ...historyIndexer,
      pending: {
        ...historyIndexer.pending!,
        has: (l, agentId) => !replaced || historyIndexer.pending!.has(l, agentId),
        catchUp: async () => {
          replaced = true;
          const stored = await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
          expect(stored.sequence).toBe(1);
        },
      },
    };
    const { ingestDelta: ledgerIngestDelta } = await import('./ingest');
    // A's base_timestamp is later than B's snapshot's created_at: only the re-check can tell.
    const refused = await ledgerIngestDelta({ ledger, indexer, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-05-04T00:00:00Z', 2), now: new Date('2026-05-04T00:00:00Z') })
      .then(() => null, (error: unknown) => error);
    expect(replaced).toBe(true);
    expect(isLedgerError(refused, 'base_superseded')).toBe(true);
    expect((refused as Error).message).toBe(`the head of agent ${AGENT} at sequence 1 is a full snapshot uploaded after the base this delta was built on `
      + '(that snapshot was stored while this delta was being ingested); nothing was stored: take the head at sequence 1 as the base (restore it) and sync again');
    expect(listEntries({ ledger, agentId: AGENT }).map((e) => `${e.seq}:${e.kind}`)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
  });
});
