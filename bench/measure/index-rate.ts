/**
 * `index_vs_sqlite_insert`: our indexing rate in record versions per second — the wall time of one
 * whole `rebuildIndex` call (what `lineage index --rebuild` runs), from BEGIN to COMMIT included:
 * emptying `records` and `raw_file_versions`, reading every ledger blob file, checking its sha256,
 * unzipping and parsing it, deriving ops, writing every `record_versions` row (over the row with
 * its id: ids 1…n as into an emptied table, rows past n deleted) with its FTS5 trigram row (tombstones have none),
 * `records`, `raw_file_versions`, the per-entry counts on `ledger_entries` (where they differ),
 * reconciling `raw_objects`, building the secondary indexes of those three tables (dropped for
 * the transaction, re-created at its end: five on `record_versions`), and the commit (WAL
 * checkpoint included) — against a raw better-sqlite3 prepared-insert loop of the same rows
 * into a plain table (same columns, no indexes, no FTS) in one transaction, in the same directory,
 * same run.
 * The rebuild's helper thread (blob reading and parsing) starts inside the timed call.
 */
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { rebuildIndex } from '@/lib/history/rebuild';
import type { Ledger } from '@/lib/ledger';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';

export function peerInsertRate(rows: Record<string, unknown>[], columns: string[], dir: string, reps: number): number {
  const file = path.join(dir, 'peer-insert.db');
  const rates: number[] = [];
  for (let r = 0; r < reps; r++) {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec(`CREATE TABLE plain (${columns.map((c) => `"${c}"`).join(', ')})`);
      const insert = db.prepare(`INSERT INTO plain VALUES (${columns.map(() => '?').join(', ')})`);
      const t0 = performance.now();
      db.transaction(() => {
        for (const row of rows) insert.run(columns.map((c) => row[c] ?? null));
      })();
      rates.push(rows.length / ((performance.now() - t0) / 1000));
    } finally {
      db.close();
    }
  }
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  return median(rates);
}

export async function measureIndexRate(args: { ledger: Ledger; workDir: string; oursReps: number; peerReps: number; log: (l: string) => void }): Promise<BenchResult> {
  const ours: number[] = [];
  let versions = 0;
  let entries = 0;
  for (let r = 0; r < args.oursReps; r++) {
    const t0 = performance.now();
    const out = await rebuildIndex({ ledger: args.ledger });
    const ms = performance.now() - t0;
    versions = out.record_versions;
    entries = out.entries;
    ours.push(versions / (ms / 1000));
  }
  const { sqlite } = args.ledger.db;
  const columns = (sqlite.prepare('PRAGMA table_info(record_versions)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
  const rows = sqlite.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM record_versions ORDER BY id`).all() as Record<string, unknown>[];
  const peer = peerInsertRate(rows, columns, args.workDir, args.peerReps);
  const rate = median(ours);
  args.log(`  index: rebuild ${rate.toFixed(0)} versions/s (${versions} versions, ${entries} entries), raw insert ${peer.toFixed(0)} rows/s`);
  return {
    name: 'index_vs_sqlite_insert',
    ours: round(rate),
    peer: round(peer),
    ratio: round(rate / peer),
    unit: 'record versions/s (ratio = ours ÷ raw insert)',
    goal: '≥ 0.3',
    meets_goal: rate / peer >= 0.3,
    note: `ours: wall time of a whole rebuildIndex (lineage index --rebuild) of ${entries} ledger entries → ${versions} record versions, median of ${args.oursReps}: every blob file read + sha256-checked + unzipped + parsed (helper thread), ops derived, every record_versions row written (over the row with its id) with its FTS5 trigram row (tombstones have none), records, raw_file_versions, ledger entry counts (where they differ), raw_objects reconciled (content-addressed objects already stored under their sha256 with the right length are kept, not rewritten), the secondary indexes of the three rewritten tables built at the end of the transaction (dropped at its start), commit with its WAL checkpoint; peer: ${columns.length}-column prepared INSERT of the same rows into a plain table (no indexes, no FTS) in one transaction (median of ${args.peerReps})`,
  };
}
