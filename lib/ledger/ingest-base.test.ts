/**
 * ingest-base.ts: the times a delta's base is compared with (to the nanosecond, any offset), and the
 * embedded ingest's re-check inside its transaction: a snapshot stored at the delta's base sequence
 * after the delta's checks (the head replaced under it) refuses the delta, which was built before
 * that snapshot existed. The `created_at` the rule compares with is the entry row's
 * `manifest_created_at`, written by every append: no blob is read for it; an entry appended before
 * that column (NULL) has its blob read as before, and the next delta's append fills the row. The two
 * machines end to end: tests/server/two-machines.test.ts; on PostgreSQL + radosgw:
 * lib/storage/pg/head-created-at.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordBlobReads, supersedeArchives } from './testing/superseded-archives';
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

describe('the created_at the rule compares with is the entry row\'s manifest_created_at (migration 0020)', () => {
  /** The head entries' rows as the rule reads them. */
  const rows = (ledger: Ledger) => listEntries({ ledger, agentId: AGENT }).map((e) => `${e.seq}:${e.kind}:${String(e.manifest_created_at)}`);

  it('every append writes its manifest created_at as the manifest has it, a deferred fold\'s too', async () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const { ledger } = t;
    registerAgent({ ledger, id: AGENT, name: 'rows', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-01T02:00:00.5+02:00', '# A\n'), now: new Date('2026-05-01T00:00:01Z') });
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await delta(0, '2026-05-01T00:00:00.500000001Z', 1), now: new Date('2026-05-02T00:00:00Z') });
    // Appended without their fold (a local sync's large change: the fold reads the blob later).
    expect((await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-05-02T00:00:00Z', 2), now: new Date('2026-05-02T00:00:00Z'), deferIndexFrom: 1 })).indexDeferred).toBe(true);
    expect((await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00-05:00', '# B\n'), now: new Date('2026-05-03T00:00:00Z'), deferIndexFrom: 1 })).indexDeferred).toBe(true);
    expect(listEntries({ ledger, agentId: AGENT }).filter((e) => e.seq === 2).length).toBe(2);
    expect(rows(ledger)).toEqual(['0:snapshot:2026-05-01T02:00:00.5+02:00', '1:delta:2026-05-01T00:00:00.500000001Z',
      '2:delta:2026-05-02T00:00:00Z', '2:snapshot:2026-05-03T00:00:00-05:00']);
  });

  it('a delta is judged on the head\'s row: no blob read, a stale one refused, one built on the head taken, on a delta head and a snapshot head', async () => {
    const ledger = await agentWithDeltaAtOne();
    const { reads, restore } = recordBlobReads(ledger.blobs);
    cleanups.push(restore);
    // The head at 1 is the delta made at 2026-05-01T00:00:00Z: a delta whose base is older was built on another entry.
    const stale = await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-04-30T23:59:59.999999999Z', 2), now: new Date('2026-05-02T00:00:00Z') })
      .then(() => null, (error: unknown) => error);
    expect(isLedgerError(stale, 'base_superseded')).toBe(true);
    expect((stale as Error).message).toContain('sync.base_timestamp 2026-04-30T23:59:59.999999999Z is older than that delta\'s delta-manifest.json created_at 2026-05-01T00:00:00Z');
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-05-01T00:00:00Z', 2), now: new Date('2026-05-02T00:00:00Z') });
    // Machine B's --force-first-sync at 2: the head there is its snapshot.
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshot('2026-05-03T00:00:00Z', '# B\n'), now: new Date('2026-05-03T00:00:00Z') });
    const superseded = await ingestDelta({ ledger, agentId: AGENT, baseSequence: 2, bytes: await delta(2, '2026-05-02T00:00:00Z', 3), now: new Date('2026-05-04T00:00:00Z') })
      .then(() => null, (error: unknown) => error);
    expect(isLedgerError(superseded, 'base_superseded')).toBe(true);
    expect((superseded as Error).message).toContain('older than that snapshot\'s manifest.json created_at 2026-05-03T00:00:00Z');
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 2, bytes: await delta(2, '2026-05-03T00:00:00Z', 3), now: new Date('2026-05-04T00:00:00Z') });
    expect(reads).toEqual([]);
    expect(rows(ledger)).toEqual(['0:snapshot:2026-05-01T00:00:00Z', '1:delta:2026-05-01T00:00:00Z', '2:delta:2026-05-01T00:00:00Z',
      '2:snapshot:2026-05-03T00:00:00Z', '3:delta:2026-05-03T00:00:00Z']);
  });

  it('an older data directory (the column NULL): the head\'s blob is read, the rule refuses and takes as before, and the append taken fills the head\'s row', async () => {
    const ledger = await agentWithDeltaAtOne();
    // The entries as appended before migration 0020: their manifest created_at only in their blobs.
    ledger.db.sqlite.exec('UPDATE ledger_entries SET manifest_created_at = NULL');
    const [, head] = listEntries({ ledger, agentId: AGENT });
    const { reads, restore } = recordBlobReads(ledger.blobs);
    cleanups.push(restore);
    const stale = await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-04-30T00:00:00Z', 2), now: new Date('2026-05-02T00:00:00Z') })
      .then(() => null, (error: unknown) => error);
    expect(isLedgerError(stale, 'base_superseded')).toBe(true);
    expect((stale as Error).message).toContain('sync.base_timestamp 2026-04-30T00:00:00Z is older than that delta\'s delta-manifest.json created_at 2026-05-01T00:00:00Z');
    expect(reads).toEqual([head!.blob_key]);
    // A refusal changes nothing: the head's row stays as it was.
    expect(rows(ledger)).toEqual(['0:snapshot:null', '1:delta:null']);
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await delta(1, '2026-05-01T00:00:00Z', 2), now: new Date('2026-05-02T00:00:00Z') });
    expect(reads).toEqual([head!.blob_key, head!.blob_key]);
    expect(rows(ledger)).toEqual(['0:snapshot:null', '1:delta:2026-05-01T00:00:00Z', '2:delta:2026-05-01T00:00:00Z']);
    // From the rows now: a delta on 2 reads no blob.
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 2, bytes: await delta(2, '2026-05-01T00:00:00Z', 3), now: new Date('2026-05-03T00:00:00Z') });
    expect(reads.length).toBe(2);
  });
});
