/**
 * `index_rebuild_with_moves`: the rebuild's rate (record versions per second, the wall time of a
 * whole `rebuildIndex`) on the generated history, whose weekly archiving moves daily logs into
 * `memory/archive/YYYY/MM/` — each move now one `move` version (provenance.ts pairs them) — against
 * the rebuild rate of the last committed run (`index_vs_sqlite_insert` in bench/results.json,
 * measured before moves were first-class: then a move was a create plus a tombstone).
 */
import fs from 'node:fs';
import { rebuildIndex } from '@/lib/history/rebuild';
import type { Ledger } from '@/lib/ledger';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';
import { peerInsertRate } from './index-rate';

/** The last run's rebuild rate (and its ratio to the raw insert of that run) from a results file, or null. */
export function lastRunRate(resultsFile: string): { rate: number; vsInsert: number | null; date: string } | null {
  if (!fs.existsSync(resultsFile)) return null;
  const report = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { date: string; results: BenchResult[] };
  const row = report.results.find((r) => r.name === 'index_vs_sqlite_insert');
  return row ? { rate: row.ours, vsInsert: row.ratio, date: report.date } : null;
}

export async function measureRebuildWithMoves(args: {
  ledger: Ledger; reps: number; last: { rate: number; vsInsert: number | null; date: string } | null; log: (l: string) => void;
  /** When given, the raw insert rate of the same rows is measured too (in this directory): a reference taken under the same load. */
  workDir?: string;
}): Promise<BenchResult> {
  const rates: number[] = [];
  const runs: number[] = [];
  let versions = 0;
  let entries = 0;
  for (let r = 0; r < args.reps; r++) {
    const t0 = performance.now();
    const out = await rebuildIndex({ ledger: args.ledger });
    const ms = performance.now() - t0;
    runs.push(Math.round(ms));
    versions = out.record_versions;
    entries = out.entries;
    rates.push(versions / (ms / 1000));
  }
  const { sqlite } = args.ledger.db;
  const counts = sqlite.prepare('SELECT sum(moves) AS moves, sum(deletes) AS deletes, sum(creates) AS creates FROM ledger_entries').get() as
    { moves: number; deletes: number; creates: number };
  const rate = median(rates);
  let insert = '';
  if (args.workDir) {
    const columns = (sqlite.prepare('PRAGMA table_info(record_versions)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
    const rows = sqlite.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM record_versions ORDER BY id`).all() as Record<string, unknown>[];
    const peer = peerInsertRate(rows, columns, args.workDir, 3);
    insert = `; under this run's load the raw insert of the same rows ran at ${peer.toFixed(0)} rows/s: rebuild ÷ raw insert = ${(rate / peer).toFixed(3)}`
      + (args.last?.vsInsert ? ` (last run ${args.last.vsInsert})` : '');
  }
  args.log(`  rebuild with moves: ${rate.toFixed(0)} versions/s (${versions} versions, ${counts.moves} moves, ${entries} entries)`);
  return {
    name: 'index_rebuild_with_moves',
    ours: round(rate),
    peer: args.last ? round(args.last.rate) : null,
    ratio: args.last ? round(rate / args.last.rate) : null,
    unit: 'record versions/s (ratio = ours ÷ last run\'s rebuild)',
    note: `informational: rebuildIndex of ${entries} ledger entries → ${versions} record versions, of which ${counts.moves} moves `
      + `(${counts.creates} creates, ${counts.deletes} deletes besides), median of ${args.reps} (${runs.join(', ')} ms); `
      + `peer: index_vs_sqlite_insert's rebuild rate of the last run${args.last ? ` (${args.last.date})` : ''}, where each move was a create and a tombstone${insert}`,
  };
}

/** Puts `result`'s row and note into an existing RESULTS.md (replacing an earlier one of the same name). */
export function putResultRow(markdownFile: string, result: BenchResult, fmt: (n: number | null) => string): void {
  const text = fs.readFileSync(markdownFile, 'utf8');
  const row = `| \`${result.name}\` | ${fmt(result.ours)} | ${fmt(result.peer)} | **${fmt(result.ratio)}** | ${result.unit} | ${result.goal ?? ''} |`;
  const note = `- \`${result.name}\`: ${result.note ?? ''}`;
  const lines = text.split('\n').filter((l) => !l.startsWith(`| \`${result.name}\``) && !l.startsWith(`- \`${result.name}\``));
  const afterRow = lines.findIndex((l) => l.startsWith('| `index_blob_prep_one_thread`'));
  lines.splice(afterRow >= 0 ? afterRow + 1 : lines.findIndex((l) => l.startsWith('|---')) + 1, 0, row);
  const afterNote = lines.findIndex((l) => l.startsWith('- `index_blob_prep_one_thread`'));
  lines.splice(afterNote >= 0 ? afterNote + 1 : lines.indexOf('## Notes') + 2, 0, note);
  fs.writeFileSync(markdownFile, lines.join('\n'));
}
