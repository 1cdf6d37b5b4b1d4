/**
 * The composition root's embedded ingest: the ledger (which knows no index) and the history
 * indexer it is handed write ONE SQLite transaction — an index that fails leaves no entry, no
 * index rows, no moved agent and no blob; an index that succeeds is visible with its entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeDelta } from '@/lib/core/archive';
import { blobFiles, countRows, tempLedger } from '@/lib/history/testing/temp-ledger';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { getAgent, listEntries } from '@/lib/ledger';
import * as ledgerIngest from '@/lib/ledger/ingest';
import { historyIndexer, ingestDelta } from './embedded-ingest';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-000000000001';
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

async function setup() {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const gen = new HistoryGenerator(t.ledger, AGENT, 11);
  gen.register();
  await gen.sync(0);
  const delta = await writeDelta({
    manifest: { alf_version: '1.0.0', created_at: '2026-03-02T00:00:00Z', agent: { id: AGENT }, sync: { base_sequence: 0, new_sequence: 0 } },
    entries: [{ operation: 'create', record: gen.newRecord('MEMORY.md', 'one more fact') }], layers: {}, rawChanged: new Map(), rawDeleted: [],
  });
  return { ...t, delta };
}

describe('embedded ingest: ledger append + history index in one SQLite transaction', () => {
  it('an index that fails after writing its rows leaves neither the entry nor the rows nor the blob', async () => {
    const { ledger, dir, delta } = await setup();
    const before = { rows: countRows(ledger), blobs: blobFiles(dir), entries: listEntries({ ledger, agentId: AGENT }) };
    let wroteInTransaction = false;
    const failing: ledgerIngest.EntryIndexer = {
      ...historyIndexer,
      index: (db, entry) => {
        historyIndexer.index(db, entry);
        wroteInTransaction = ledger.db.sqlite.inTransaction;
        throw new Error('index failed after writing its rows');
      },
    };
    await expect(ledgerIngest.ingestDelta({ ledger, indexer: failing, agentId: AGENT, baseSequence: 0, bytes: delta, now: new Date() }))
      .rejects.toThrow('index failed after writing its rows');
    expect(wroteInTransaction).toBe(true);
    expect(countRows(ledger)).toEqual(before.rows);
    expect(listEntries({ ledger, agentId: AGENT })).toEqual(before.entries);
    expect(getAgent({ ledger, agentId: AGENT })!.latest_sequence).toBe(0);
    expect(blobFiles(dir)).toEqual(before.blobs);
  });

  it('a delta through the composition root is appended and indexed together', async () => {
    const { ledger, delta } = await setup();
    const before = countRows(ledger);
    const result = await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: delta, now: new Date() });
    expect(result.sequence).toBe(1);
    const after = countRows(ledger);
    expect([after.ledger_entries! - before.ledger_entries!, after.record_versions! - before.record_versions!]).toEqual([1, 1]);
    expect(listEntries({ ledger, agentId: AGENT }).at(-1)).toMatchObject({ seq: 1, creates: 1 });
  });
});
