/**
 * Where the rebuild's time goes, measured beside `index_vs_sqlite_insert` (informational, no goal):
 *
 * - `index_sqlite_writes_only`: the rebuild's SQLite work alone — its own transaction, settings,
 *   full-text takeover, suspended indexes, wipe and `RebuildWriter` statements (rebuild.ts,
 *   rebuild-target.ts), fed the rows the rebuild just wrote, read back beforehand: no blob read,
 *   parsed or folded. Its rate ÷ the raw insert rate is the most `index_vs_sqlite_insert` could
 *   reach if everything else the rebuild does cost nothing.
 * - `index_blob_prep_one_thread`: the other half, on one thread — every ledger blob file read,
 *   sha256-checked, unzipped, parsed and turned into index fields (`prepareBlobFile`, what the
 *   rebuild's helper thread runs).
 *
 * The writes-only pass writes the same rows the index holds: the index is compared before and
 * after (a digest of every rewritten table, FTS5's integrity-check), and a difference fails the
 * benchmark.
 */
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import type { RecordRow } from '@/db/schema';
import type { RecordFields } from '@/lib/history/index-rows';
import type { RawVersionRow, VersionMeta } from '@/lib/history/indexer';
import { prepareBlobFile } from '@/lib/history/ledger-blob';
import { rebuildPragmas, suspendIndexes, takeOverFts, wipe } from '@/lib/history/rebuild';
import { RebuildWriter } from '@/lib/history/rebuild-target';
import { FsBlobStore, type Ledger } from '@/lib/ledger';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';

type VersionRow = RecordFields & VersionMeta;

/** A digest of the tables a rebuild rewrites, in a fixed order. */
function indexDigest(sqlite: Database.Database): string {
  const hash = crypto.createHash('sha256');
  for (const sql of [
    'SELECT * FROM record_versions ORDER BY id',
    'SELECT * FROM records ORDER BY agent_id, record_id',
    'SELECT * FROM raw_file_versions ORDER BY agent_id, path, seq, entry_kind',
    'SELECT sha256, size FROM raw_objects ORDER BY sha256',
  ]) {
    for (const row of sqlite.prepare(sql).raw().iterate()) hash.update(JSON.stringify(row));
  }
  return hash.digest('hex');
}

/** One pass of the rebuild's SQLite work over precomputed rows; returns its wall time in ms. */
function writeOnly(ledger: Ledger, rows: { versions: VersionRow[]; records: RecordRow[]; raw: RawVersionRow[] }): number {
  const { sqlite } = ledger.db;
  const t0 = performance.now();
  const restorePragmas = rebuildPragmas(ledger);
  try {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const writer = new RebuildWriter(sqlite);
      const restoreFts = takeOverFts(ledger);
      const restoreIndexes = suspendIndexes(ledger);
      wipe(ledger);
      for (const v of rows.versions) writer.insertVersion(v, v);
      for (const r of rows.raw) {
        if (r.sha256 !== null) writer.putObject(r.sha256, null);
        writer.insertRawVersion(r);
      }
      for (const r of rows.records) writer.insertRecord(r);
      writer.finish();
      restoreIndexes();
      restoreFts();
      sqlite.exec('COMMIT');
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  } finally {
    restorePragmas();
  }
  return performance.now() - t0;
}

/** Every ledger blob prepared on this thread, as the rebuild's helper prepares them; ms. */
function prepareAll(ledger: Ledger): number {
  const { sqlite } = ledger.db;
  const store = ledger.blobs as FsBlobStore;
  const entries = sqlite.prepare('SELECT blob_key, size_bytes, sha256, kind FROM ledger_entries ORDER BY agent_id, seq, kind').all() as
    { blob_key: string; size_bytes: number; sha256: string; kind: 'delta' | 'snapshot' }[];
  const stored = new Set(sqlite.prepare('SELECT sha256 FROM raw_objects').pluck().all() as string[]);
  const t0 = performance.now();
  for (const e of entries) {
    const prepared = prepareBlobFile({ file: store.pathOf(e.blob_key), root: store.root, key: e.blob_key, size: e.size_bytes, sha256: e.sha256, kind: e.kind }, stored);
    if (prepared === null) throw new Error(`blob ${e.blob_key} did not prepare`);
  }
  return performance.now() - t0;
}

export function measureIndexBreakdown(args: { ledger: Ledger; peerRate: number; reps: number; log: (l: string) => void }): BenchResult[] {
  const { ledger, peerRate } = args;
  const { sqlite } = ledger.db;
  if (!(ledger.blobs instanceof FsBlobStore)) throw new Error('the index breakdown reads blob files');
  const versions = sqlite.prepare(`SELECT agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
      origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from FROM record_versions ORDER BY id`).all() as VersionRow[];
  const records = sqlite.prepare('SELECT agent_id, record_id, first_seq, last_seq, deleted_seq, born_at, last_changed_at FROM records ORDER BY agent_id, record_id').all() as RecordRow[];
  const raw = sqlite.prepare('SELECT agent_id, path, seq, entry_kind, sha256, size, deleted FROM raw_file_versions ORDER BY rowid').all() as RawVersionRow[];
  const before = indexDigest(sqlite);
  const writeMs: number[] = [];
  const prepMs: number[] = [];
  for (let r = 0; r < args.reps; r++) {
    writeMs.push(writeOnly(ledger, { versions, records, raw }));
    prepMs.push(prepareAll(ledger));
  }
  if (indexDigest(sqlite) !== before) throw new Error('index breakdown: the writes-only pass changed the index');
  // The word index's own consistency (raises on a damaged index).
  sqlite.exec("INSERT INTO record_versions_words(record_versions_words) VALUES ('integrity-check')");
  const writeRate = versions.length / (median(writeMs) / 1000);
  const prepRate = versions.length / (median(prepMs) / 1000);
  args.log(`  index breakdown: SQLite writes alone ${median(writeMs).toFixed(0)} ms (${writeRate.toFixed(0)} versions/s), blob preparation on one thread ${median(prepMs).toFixed(0)} ms`);
  const entries = (sqlite.prepare('SELECT count(*) FROM ledger_entries').pluck().get() as number);
  return [
    {
      name: 'index_sqlite_writes_only',
      ours: round(writeRate),
      peer: round(peerRate),
      ratio: round(writeRate / peerRate),
      unit: 'record versions/s (ratio = ours ÷ raw insert)',
      note: `informational: the rebuild's SQLite work alone — its transaction and settings, full-text takeover, suspended and rebuilt indexes, wipe and RebuildWriter statements — fed the ${versions.length} versions, ${records.length} records and ${raw.length} raw file versions the rebuild wrote (read back first; no blob read, parsed or folded), commit included; the index is identical afterwards (digest of the tables, FTS5 integrity-check). This ratio is what index_vs_sqlite_insert could reach if everything else the rebuild does were free; median of ${args.reps} (${writeMs.map((ms) => ms.toFixed(0)).join(', ')} ms)`,
    },
    {
      name: 'index_blob_prep_one_thread',
      ours: round(prepRate),
      peer: round(peerRate),
      ratio: round(prepRate / peerRate),
      unit: 'record versions/s (ratio = ours ÷ raw insert)',
      note: `informational: the rest of the rebuild's work, on one thread: ${entries} ledger blob files read, sha256-checked, unzipped, parsed and turned into index fields (prepareBlobFile, the helper thread's job); median of ${args.reps} (${prepMs.map((ms) => ms.toFixed(0)).join(', ')} ms). With the SQLite writes, this is the CPU time two cores share in a rebuild`,
    },
  ];
}
