/**
 * `index_vs_sqlite_insert`: our indexing rate — `rebuildIndex` replaying every ledger blob (unzip,
 * parse, derive ops, record_versions + FTS + records + raw file versions) — in record versions per
 * second, against a raw better-sqlite3 prepared-insert loop of the same rows into a plain table
 * (same columns, no indexes, no FTS), in the same directory with the same pragmas.
 */
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { rebuildIndex } from '@/lib/history/rebuild';
import type { Ledger } from '@/lib/ledger';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';

function peerInsertRate(rows: Record<string, unknown>[], columns: string[], dir: string, reps: number): number {
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
    note: `rebuildIndex of ${entries} ledger entries → ${versions} record versions (median of ${args.oursReps}); peer: ${columns.length}-column prepared INSERT of the same rows in one transaction (median of ${args.peerReps})`,
  };
}
