import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveError, readDelta, readSnapshot } from '@/lib/core/archive';
import { FsBlobStore, isLedgerError, readEntryBytes, type Ledger } from '@/lib/ledger';
import { prepareArchive, prepareBlobFile, prepareLedgerBlobSync } from './ledger-blob';
import { compareBinary } from './rebuild-target';
import { rebuildIndex } from './rebuild';
import { decodeChunk, encodeChunk } from './rebuild-worker';
import { HistoryGenerator } from './testing/generator';
import { indexText } from './search/index-text';
import { INSERT_WORDS } from './search/word-index';
import { dumpIndex, tempLedger } from './testing/temp-ledger';
import { wordIndexProblems } from './testing/word-index-check';

const AGENT = '3f2d1c0b-3333-4a2b-8c3d-000000000001';
const OTHER = '3f2d1c0b-3333-4a2b-8c3d-000000000002';

let ledger: Ledger;
let cleanup: () => void;

interface Entry { agent_id: string; seq: number; kind: 'delta' | 'snapshot'; blob_key: string; sha256: string; size_bytes: number }
const entries = () => ledger.db.sqlite.prepare('SELECT agent_id, seq, kind, blob_key, sha256, size_bytes FROM ledger_entries ORDER BY agent_id, seq, kind').all() as Entry[];
const triggerCount = () => (ledger.db.sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'record_versions'").get() as { n: number }).n;
/** The whole schema (tables, indexes, triggers) and the full-text index's configuration rows. */
const schema = () => ({
  master: ledger.db.sqlite.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all(),
  wordsConfig: ledger.db.sqlite.prepare('SELECT k, v FROM record_versions_words_config ORDER BY k').all(),
});

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 11);
  gen.register();
  for (let i = 0; i < 6; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 70; turn++) {
    gen.randomMutations();
    if (turn % 9 === 0) gen.plantFact();
    if (turn === 20) gen.moveRecord(gen.records[0]!.id, 'memory/archive/old.md');
    if (turn === 30) gen.deleteRecord();
    await gen.sync(turn, { rollover: turn === 40 || turn === 55 });
  }
  const other = new HistoryGenerator(ledger, OTHER, 5);
  other.register();
  other.plantFact('MEMORY.md');
  await other.sync(0);
  other.randomMutations();
  await other.sync(1);
});

afterAll(() => cleanup?.());

describe('ledger blob reader', () => {
  it('prepares every ledger blob exactly as the core archive reader does', async () => {
    const all = entries();
    expect(all.some((e) => e.kind === 'snapshot' && e.seq > 0)).toBe(true);
    for (const entry of all) {
      const bytes = await readEntryBytes({ ledger, entry });
      const fast = prepareLedgerBlobSync(entry.kind, bytes);
      expect(fast).not.toBeNull();
      const core = entry.kind === 'delta'
        ? prepareArchive({ kind: 'delta', archive: await readDelta(bytes) })
        : prepareArchive({ kind: 'snapshot', archive: await readSnapshot(bytes) });
      expect(fast).toEqual(core);
    }
  });

  it('carries prepared entries between threads unchanged', async () => {
    const prepared = [];
    for (const entry of entries()) prepared.push(prepareLedgerBlobSync(entry.kind, await readEntryBytes({ ledger, entry })));
    // Raw files both with their bytes and without (stored already), strings with lone surrogates
    // and non-Latin-1 text, and an entry left to the checked path (null).
    const snapshot = prepared.find((p) => p?.kind === 'snapshot')!;
    if (snapshot.kind !== 'snapshot') throw new Error('expected a snapshot');
    snapshot.raw[0] = { ...snapshot.raw[0]!, bytes: null };
    snapshot.records[0] = { ...snapshot.records[0]!, content: 'é \uD800 \u{1F600} ✓', heading: null, tags: '' };
    prepared.splice(3, 0, null);
    for (let i = 0; i < prepared.length; i += 16) {
      const chunk = prepared.slice(i, i + 16);
      const answer = structuredClone(encodeChunk(i / 16, chunk));
      expect(decodeChunk(answer, chunk.length)).toEqual(chunk);
    }
  });

  it('reads blob files one after another into entries that stay intact', async () => {
    const store = ledger.blobs as FsBlobStore;
    const job = (e: Entry) => ({ file: store.pathOf(e.blob_key), root: store.root, key: e.blob_key, size: e.size_bytes, sha256: e.sha256, kind: e.kind });
    // All prepared first, compared after: an entry holding a view of a reused read buffer would
    // have been overwritten by the later reads.
    const prepared = entries().map((e) => prepareBlobFile(job(e)));
    const expected = [];
    for (const e of entries()) expected.push(prepareLedgerBlobSync(e.kind, await readEntryBytes({ ledger, entry: e })));
    expect(prepared).toEqual(expected);
    expect(prepared.every((p) => p !== null)).toBe(true);
  });

  it('declines a blob file that is not its recorded size, or missing', () => {
    const store = ledger.blobs as FsBlobStore;
    const e = entries()[1]!;
    // Sequence 1 is at rest packed against sequence 0: read through the store's reader by key.
    expect(store.fileOf(e.blob_key)).toBe(`${store.pathOf(e.blob_key)}.packed`);
    const job = { file: store.pathOf(e.blob_key), root: store.root, key: e.blob_key, size: e.size_bytes, sha256: e.sha256, kind: e.kind };
    expect(prepareBlobFile(job)).not.toBeNull();
    expect(prepareBlobFile({ ...job, size: e.size_bytes - 1 })).toBeNull();
    expect(prepareBlobFile({ ...job, size: e.size_bytes + 1 })).toBeNull();
    expect(prepareBlobFile({ ...job, key: `${e.blob_key}.missing.alf` })).toBeNull();
    const whole = entries()[0]!;
    expect(store.fileOf(whole.blob_key)).toBe(store.pathOf(whole.blob_key));
    const wholeJob = { file: store.pathOf(whole.blob_key), size: whole.size_bytes, sha256: whole.sha256, kind: whole.kind };
    expect(prepareBlobFile(wholeJob)).not.toBeNull();
    expect(prepareBlobFile({ ...wholeJob, file: `${wholeJob.file}.missing` })).toBeNull();
  });

  it('declines what is not a regular archive instead of guessing', () => {
    expect(prepareLedgerBlobSync('delta', new Uint8Array([1, 2, 3]))).toBeNull();
    expect(prepareLedgerBlobSync('delta', new Uint8Array(100))).toBeNull();
  });

  it('leaves out the bytes of raw files already stored', async () => {
    const entry = entries().find((e) => e.kind === 'snapshot')!;
    const bytes = await readEntryBytes({ ledger, entry });
    const full = prepareLedgerBlobSync('snapshot', bytes)!;
    if (full.kind !== 'snapshot') throw new Error('expected a snapshot');
    const first = full.raw[0]!;
    const trimmed = prepareLedgerBlobSync('snapshot', bytes, new Set([first.sha256]))!;
    if (trimmed.kind !== 'snapshot') throw new Error('expected a snapshot');
    expect(trimmed.raw[0]).toEqual({ ...first, bytes: null });
    expect(trimmed.raw[0]!.size).toBe(first.bytes!.byteLength);
  });
});

/** Documents in the full-text index (FTS5 keeps one size row per indexed document). */
const fullTextRows = () => ledger.db.sqlite.prepare('SELECT count(*) FROM record_versions_words_docsize').pluck().get() as number;
const nonTombstones = () => ledger.db.sqlite.prepare("SELECT count(*) FROM record_versions WHERE op <> 'delete'").pluck().get() as number;

describe('rebuild', () => {
  it('equals the incremental index row for row, across agents and rollovers', async () => {
    const before = dumpIndex(ledger);
    // The incremental index wrote a word-index row beside every version it inserted but tombstones.
    expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
    expect(fullTextRows()).toEqual(nonTombstones());
    expect(nonTombstones()).toBeLessThan(ledger.db.sqlite.prepare('SELECT count(*) FROM record_versions').pluck().get() as number);
    const schemaBefore = schema();
    const pragma = (name: string) => ledger.db.sqlite.pragma(name, { simple: true });
    const settingsBefore = ['cache_size', 'temp_store'].map(pragma);
    expect(schemaBefore.master.filter((r) => (r as { type: string }).type === 'index').length).toBeGreaterThan(8);
    const progress: number[] = [];
    const result = await rebuildIndex({ ledger, onProgress: ({ done }) => progress.push(done) });
    expect(result.entries).toBe(entries().length);
    expect(progress).toEqual(Array.from({ length: result.entries }, (_, i) => i + 1));
    expect(dumpIndex(ledger)).toEqual(before);
    expect(triggerCount()).toBe(2);
    // Every index and trigger it suspended is back as the migration made it; the full-text
    // index's configuration is as it was.
    expect(schema()).toEqual(schemaBefore);
    // Connection settings the rebuild changes for its duration are back.
    expect(ledger.db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(ledger.db.sqlite.pragma('mmap_size', { simple: true })).toBe(0);
    expect(['cache_size', 'temp_store'].map(pragma)).toEqual(settingsBefore);
    // The word index holds exactly the versions' tokens, and answers.
    expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
    expect(fullTextRows()).toEqual(nonTombstones());
    const hits = ledger.db.sqlite.prepare(`SELECT count(*) FROM record_versions_words WHERE record_versions_words MATCH '"note"'`).pluck().get();
    expect(hits).toBeGreaterThan(0);
    // A second rebuild (raw objects already stored) gives the same index again.
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(before);
  });

  it('rewrites a stored raw object whose length is wrong and drops objects nothing references', async () => {
    const before = dumpIndex(ledger);
    const { sqlite } = ledger.db;
    const victim = (sqlite.prepare('SELECT sha256 FROM raw_objects ORDER BY sha256 LIMIT 1').get() as { sha256: string }).sha256;
    sqlite.prepare("UPDATE raw_objects SET data = x'00' WHERE sha256 = ?").run(victim);
    sqlite.prepare("INSERT INTO raw_objects (sha256, size, data) VALUES (?, 1, x'00')").run('f'.repeat(64));
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(before);
  });

  it('writes record_versions over what was there: ids 1…n as into an emptied table, wrong, missing and extra rows set right', async () => {
    const { sqlite } = ledger.db;
    const versionsWithIds = () => sqlite.prepare('SELECT * FROM record_versions ORDER BY id').all();
    const ftsCheck = () => expect(wordIndexProblems(sqlite)).toEqual([]);
    sqlite.exec('DELETE FROM record_versions'); // the full-text rows go with them (trigger)
    await rebuildIndex({ ledger });
    const expected = versionsWithIds();
    const before = dumpIndex(ledger);
    expect((expected as { id: number }[]).map((r) => r.id)).toEqual(Array.from({ length: expected.length }, (_, i) => i + 1));
    // A changed row (content and size: damage, as no program writes it — the guard trigger is
    // lifted for it, and its word-index row made to match), a row gone (a gap), and rows past the
    // end and far beyond.
    const guard = sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'record_versions_words_au'").pluck().get() as string;
    sqlite.exec('DROP TRIGGER record_versions_words_au');
    sqlite.prepare("UPDATE record_versions SET content = 'stale', record_json = '{}' WHERE id = 3").run();
    sqlite.exec(guard);
    sqlite.prepare('DELETE FROM record_versions_words WHERE rowid = 3').run();
    sqlite.prepare(INSERT_WORDS).run(3, indexText('stale'));
    sqlite.prepare('DELETE FROM record_versions WHERE id = 5').run();
    sqlite.prepare(`INSERT INTO record_versions (id, agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace,
      status, tags, record_json, synced_at) SELECT id + ?, agent_id, record_id, seq + 1000, entry_kind, op, 'extra note', content_sha256,
      memory_type, namespace, status, tags, record_json, synced_at FROM record_versions WHERE id IN (1, 2)`).run(1_000_000);
    sqlite.prepare(`INSERT INTO record_versions (id, agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace,
      status, tags, record_json, synced_at) SELECT ?, agent_id, record_id, seq + 2000, entry_kind, op, 'extra note', content_sha256,
      memory_type, namespace, status, tags, record_json, synced_at FROM record_versions WHERE id = 1`).run(expected.length + 1);
    // Their full-text rows, as the indexer writes them beside each version it inserts.
    const added = sqlite.prepare("SELECT id, content FROM record_versions WHERE id > ? AND op <> 'delete'").raw().all(expected.length) as [number, string][];
    for (const [id, content] of added) sqlite.prepare(INSERT_WORDS).run(id, indexText(content));
    ftsCheck();
    expect(dumpIndex(ledger)).not.toEqual(before);
    await rebuildIndex({ ledger });
    expect(versionsWithIds()).toEqual(expected);
    expect(dumpIndex(ledger)).toEqual(before);
    ftsCheck();
  });

  it('sets entry counts that are wrong, whichever count it is', async () => {
    const before = dumpIndex(ledger);
    const { sqlite } = ledger.db;
    const columns = ['creates', 'updates', 'deletes', 'raw_changed', 'raw_deleted'];
    columns.forEach((column, i) => sqlite.prepare(`UPDATE ledger_entries SET ${column} = ${column} + 7 WHERE rowid IN (
      SELECT rowid FROM ledger_entries ORDER BY agent_id, seq, kind LIMIT 1 OFFSET ?)`).run(i * 5));
    expect(dumpIndex(ledger).ledger_entries).not.toEqual(before.ledger_entries);
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(before);
  });

  it('fails cleanly on a blob that no longer matches its sha256, leaving the index as it was', async () => {
    const before = dumpIndex(ledger);
    const schemaBefore = schema();
    const entry = entries().find((e) => e.kind === 'delta' && e.seq === 33)!;
    const file = (ledger.blobs as FsBlobStore).fileOf(entry.blob_key)!;
    const original = fs.readFileSync(file);
    const corrupt = Buffer.from(original);
    corrupt[corrupt.length >> 1] = corrupt[corrupt.length >> 1]! ^ 0xff;
    fs.writeFileSync(file, corrupt);
    try {
      const error = await rebuildIndex({ ledger }).catch((e: unknown) => e);
      expect(isLedgerError(error, 'blob_corrupt')).toBe(true);
      expect(dumpIndex(ledger)).toEqual(before);
      expect(triggerCount()).toBe(2);
      expect(schema()).toEqual(schemaBefore);
      expect(ledger.db.sqlite.inTransaction).toBe(false);
    } finally {
      fs.writeFileSync(file, original);
    }
  });

  it('reports an archive error for a blob that matches its sha256 but is not an archive', async () => {
    const before = dumpIndex(ledger);
    const entry = entries().find((e) => e.kind === 'delta' && e.seq === 20)!;
    // A whole file beside a packed one is what the store reads first.
    const file = (ledger.blobs as FsBlobStore).pathOf(entry.blob_key);
    const original = fs.existsSync(file) ? fs.readFileSync(file) : null;
    const garbage = Buffer.from('PK\x05\x06 not really a zip archive at all');
    const { sqlite } = ledger.db;
    const { createHash } = await import('node:crypto');
    fs.writeFileSync(file, garbage);
    sqlite.prepare('UPDATE ledger_entries SET sha256 = ? WHERE agent_id = ? AND seq = ? AND kind = ?')
      .run(createHash('sha256').update(garbage).digest('hex'), entry.agent_id, entry.seq, entry.kind);
    try {
      const error = await rebuildIndex({ ledger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ArchiveError);
      expect((error as ArchiveError).code).toBe('not_a_zip');
      expect(dumpIndex(ledger).record_versions).toEqual(before.record_versions);
    } finally {
      if (original) fs.writeFileSync(file, original);
      else fs.rmSync(file);
      sqlite.prepare('UPDATE ledger_entries SET sha256 = ? WHERE agent_id = ? AND seq = ? AND kind = ?').run(entry.sha256, entry.agent_id, entry.seq, entry.kind);
    }
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(before);
  });
});

describe('compareBinary', () => {
  it('orders as SQLite BINARY (UTF-8 bytes) does', () => {
    const words = ['b', 'a', 'ab', '', 'é', 'z', '\u{1F600}', '\uFFFD', 'a\u{1F600}', 'a\uE000'];
    const sqlite = ledger.db.sqlite.prepare(`SELECT value FROM json_each(?) ORDER BY value COLLATE BINARY`).pluck().all(JSON.stringify(words));
    expect([...words].sort(compareBinary)).toEqual(sqlite);
  });
});
