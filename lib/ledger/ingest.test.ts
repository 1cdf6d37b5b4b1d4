import { afterEach, describe, expect, it } from 'vitest';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { blobFiles, countRows, tempLedger } from '@/lib/history/testing/temp-ledger';
import { deleteAgent, getAgent, isLedgerError, listEntries, readEntryBytes, registerAgent, restorePlan, type Ledger, type LedgerError } from './index';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';

const AGENT = '7b0f3c2e-1111-4a2b-8c3d-000000000001';
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup(): { ledger: Ledger; dir: string; gen: HistoryGenerator } {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const gen = new HistoryGenerator(t.ledger, AGENT, 7);
  gen.register();
  return { ledger: t.ledger, dir: t.dir, gen };
}

async function rejects(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    if (isLedgerError(error)) return error;
    throw error;
  }
  throw new Error('expected a LedgerError');
}

async function deltaBytes(gen: HistoryGenerator, base: number, agentId = AGENT): Promise<Uint8Array> {
  return writeDelta({
    manifest: { alf_version: '1.0.0', created_at: '2026-03-02T00:00:00Z', agent: { id: agentId }, sync: { base_sequence: base, new_sequence: 0 } },
    entries: [{ operation: 'create', record: gen.newRecord('MEMORY.md', 'one more') }], layers: {}, rawChanged: new Map(), rawDeleted: [],
  });
}

describe('ingest sequence rules', () => {
  it('stores the first snapshot at 0 and each delta at latest + 1', async () => {
    const { ledger, gen } = setup();
    gen.addRecord();
    expect((await gen.sync(0))?.seq).toBe(0);
    gen.addRecord();
    expect((await gen.sync(1))?.seq).toBe(1);
    gen.editRecord();
    expect((await gen.sync(2))?.seq).toBe(2);
    const agent = getAgent({ ledger, agentId: AGENT });
    expect(agent).toMatchObject({ latest_sequence: 2, latest_snapshot_seq: 0 });
    expect(listEntries({ ledger, agentId: AGENT }).map((e) => [e.seq, e.kind])).toEqual([[0, 'snapshot'], [1, 'delta'], [2, 'delta']]);
  });

  it('rejects a stale base with the latest sequence and writes nothing', async () => {
    const { ledger, dir, gen } = setup();
    gen.addRecord();
    await gen.sync(0);
    gen.addRecord();
    await gen.sync(1);
    const before = { rows: countRows(ledger), blobs: blobFiles(dir) };
    const error = await rejects(ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(gen, 0), now: gen.timeOf(5) }));
    expect(error.code).toBe('stale_sequence');
    expect(error.latest).toBe(1);
    expect({ rows: countRows(ledger), blobs: blobFiles(dir) }).toEqual(before);
  });

  it('refuses a delta before any snapshot, a foreign manifest, a base mismatch and garbage — changing nothing', async () => {
    const { ledger, dir, gen } = setup();
    const empty = { rows: countRows(ledger), blobs: blobFiles(dir) };
    expect((await rejects(ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(gen, 0), now: gen.timeOf(1) }))).code).toBe('no_snapshot');
    expect({ rows: countRows(ledger), blobs: blobFiles(dir) }).toEqual(empty);
    gen.addRecord();
    await gen.sync(0);
    const before = { rows: countRows(ledger), blobs: blobFiles(dir) };
    const other = '7b0f3c2e-1111-4a2b-8c3d-0000000000ff';
    expect((await rejects(ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(gen, 0, other), now: gen.timeOf(1) }))).code).toBe('agent_mismatch');
    expect((await rejects(ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(gen, 3), now: gen.timeOf(1) }))).code).toBe('base_mismatch');
    expect((await rejects(ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: new TextEncoder().encode('not a zip'), now: gen.timeOf(1) }))).code).toBe('bad_archive');
    expect((await rejects(ingestSnapshot({ ledger, agentId: AGENT, bytes: await deltaBytes(gen, 0), now: gen.timeOf(1) }))).code).toBe('bad_archive');
    expect((await rejects(ingestSnapshot({ ledger, agentId: other, bytes: await writeSnapshot(gen.snapshotOf()), now: gen.timeOf(1) }))).code).toBe('agent_not_found');
    expect({ rows: countRows(ledger), blobs: blobFiles(dir) }).toEqual(before);
  });

  it('accepts exactly one of several concurrent deltas on the same base', async () => {
    const { ledger, gen } = setup();
    gen.addRecord();
    await gen.sync(0);
    const uploads = await Promise.all(Array.from({ length: 6 }, () => deltaBytes(gen, 0)));
    const results = await Promise.allSettled(uploads.map((bytes) => ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes, now: gen.timeOf(1) })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as LedgerError).code).toBe('stale_sequence');
    expect(listEntries({ ledger, agentId: AGENT })).toHaveLength(2);
  });

  it('stores a rollover snapshot at latest, and at latest + 1 when a snapshot already sits there', async () => {
    const { ledger, gen } = setup();
    gen.addRecord();
    await gen.sync(0);
    gen.addRecord();
    await gen.sync(1);
    gen.addRecord();
    expect((await gen.sync(2, { rollover: true }))?.seq).toBe(1);
    gen.addRecord();
    expect((await gen.sync(3, { rollover: true }))?.seq).toBe(2);
    expect(listEntries({ ledger, agentId: AGENT }).map((e) => `${e.seq}:${e.kind}`)).toEqual(['0:snapshot', '1:delta', '1:snapshot', '2:snapshot']);
    expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ latest_sequence: 2, latest_snapshot_seq: 2 });
  });
});

describe('restore plans and bytes', () => {
  it('picks the largest snapshot ≤ N and the deltas after it', async () => {
    const { ledger, gen } = setup();
    expect(() => restorePlan({ ledger, agentId: AGENT })).toThrow(/never been synced/);
    for (let t = 0; t < 4; t++) {
      gen.addRecord();
      await gen.sync(t);
    }
    gen.addRecord();
    await gen.sync(4, { rollover: true });
    gen.addRecord();
    await gen.sync(5);
    const plan = restorePlan({ ledger, agentId: AGENT, upToSequence: 2 });
    expect([plan.snapshot.seq, plan.deltas.map((d) => d.seq)]).toEqual([0, [1, 2]]);
    const head = restorePlan({ ledger, agentId: AGENT });
    expect([head.sequence, head.snapshot.seq, head.snapshot.kind, head.deltas.map((d) => d.seq)]).toEqual([4, 3, 'snapshot', [4]]);
    expect(() => restorePlan({ ledger, agentId: AGENT, upToSequence: 9 })).toThrow(/exceeds agent's latest sequence 4/);
    const bytes = await readEntryBytes({ ledger, entry: head.snapshot });
    expect(bytes.byteLength).toBe(head.snapshot.size_bytes);
  });
});

describe('agents', () => {
  it('registers once and deletes rows and blobs', async () => {
    const { ledger, dir, gen } = setup();
    expect(registerAgent({ ledger, id: AGENT, name: 'x', sourceRuntime: 'openclaw', tenantId: null, now: new Date(0) })).toBe('exists');
    expect(() => registerAgent({ ledger, id: 'nope', name: 'x', sourceRuntime: null, tenantId: null, now: new Date(0) })).toThrow(/UUID/);
    for (let t = 0; t < 3; t++) {
      gen.randomMutations();
      gen.plantFact();
      if (t === 1) gen.deleteRecord();
      await gen.sync(t);
    }
    expect(blobFiles(dir)).toHaveLength(3);
    expect(ledger.db.sqlite.prepare("SELECT count(*) FROM record_versions WHERE op = 'delete'").pluck().get()).toBeGreaterThan(0);
    const result = await deleteAgent({ ledger, agentId: AGENT });
    expect(result).toEqual({ deleted: true, objects_removed: 3 });
    expect(countRows(ledger)).toEqual({ agents: 0, ledger_entries: 0, record_versions: 0, records: 0, raw_objects: 0, raw_file_versions: 0 });
    expect(blobFiles(dir)).toEqual([]);
    expect(ledger.db.sqlite.prepare(`SELECT count(*) AS n FROM record_versions_words WHERE record_versions_words MATCH '"note"'`).get()).toEqual({ n: 0 });
    // The delete trigger removed exactly the indexed versions' word-index rows (tombstones have none).
    ledger.db.sqlite.exec("INSERT INTO record_versions_words(record_versions_words) VALUES ('integrity-check')");
    expect(ledger.db.sqlite.prepare('SELECT count(*) FROM record_versions_words_docsize').pluck().get()).toBe(0);
  });
});

describe('FsBlobStore', () => {
  it('keeps blobs byte-exact in one flat directory and shares directory fsyncs between concurrent puts', async () => {
    const { FsBlobStore } = await import('./blob-store');
    const fsp = await import('node:fs/promises');
    const os = await import('node:os');
    const pathMod = await import('node:path');
    const root = await fsp.mkdtemp(pathMod.join(os.tmpdir(), 'lineage-blobs-'));
    try {
      const store = new FsBlobStore(pathMod.join(root, 'blobs'));
      const keys = Array.from({ length: 20 }, (_, i) => `agent-${i % 3}/${i}-abc.alf-delta`);
      await Promise.all(keys.map((key, i) => store.put(key, new Uint8Array([i, 255, 0]))));
      for (const [i, key] of keys.entries()) expect([...(await store.get(key))]).toEqual([i, 255, 0]);
      const files = (await fsp.readdir(pathMod.join(root, 'blobs'))).sort();
      expect(files).toHaveLength(20);
      expect(files.every((f) => /^agent-\d~\d+-abc\.alf-delta$/.test(f))).toBe(true);
      expect(() => store.pathOf('../escape.alf')).toThrow(/bad blob key/);
    } finally {
      await fsp.rm(root, { recursive: true, force: true });
    }
  });
});

describe('sweepOrphanBlobs', () => {
  it('removes only old staging files; a blob without an entry is kept, and reported when it continues the ledger', async () => {
    const { sweepOrphanBlobs } = await import('./orphans');
    const { FsBlobStore } = await import('./blob-store');
    const fsp = await import('node:fs/promises');
    const path = await import('node:path');
    const { ledger, gen } = setup();
    gen.addRecord();
    await gen.sync(0);
    const agentId = AGENT;
    const kept = listEntries({ ledger, agentId }).map((e) => e.blob_key);
    await ledger.blobs.put(`${agentId}/1-00000000deadbeef.alf-delta`, new Uint8Array([1]));
    const root = (ledger.blobs as InstanceType<typeof FsBlobStore>).root;
    const staging = path.join(root, `${agentId}~2-00000000deadbeef.alf-delta.tmp-1-abc`);
    await fsp.writeFile(staging, 'half');
    const later = new Date(Date.now() + 60 * 60 * 1000);
    const warnings: string[] = [];
    expect(await sweepOrphanBlobs({ ledger, now: new Date(), warn: (l) => warnings.push(l) })).toEqual({ removed: 0, unledgered: 1, chaining: 1, leftovers: 0 });
    expect(await sweepOrphanBlobs({ ledger, now: later, warn: (l) => warnings.push(l) })).toEqual({ removed: 1, unledgered: 1, chaining: 1, leftovers: 0 });
    expect(warnings[0]).toMatch(/WARNING: 1 stored upload\(s\) .*`lineage doctor --repair/);
    for (const key of kept) expect(await ledger.blobs.exists(key)).toBe(true);
    expect(await ledger.blobs.exists(`${agentId}/1-00000000deadbeef.alf-delta`)).toBe(true);
    await expect(fsp.stat(staging)).rejects.toThrow(/ENOENT/);
  });
});
