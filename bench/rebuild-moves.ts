/**
 * `npx tsx bench/rebuild-moves.ts [--turns N]`: only the `index_rebuild_with_moves` figure — builds
 * the generated history (default 10,000 turns, in /dev/shm when it exists), rebuilds its index and
 * compares the rate with the last run's (bench/results.json). Writes bench/results-rebuild-moves.json
 * and the figure's row in bench/RESULTS.md; the last line printed is `{"results":[…]}`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { buildHistory } from './history/build';
import { lastRunRate, measureRebuildWithMoves, putResultRow } from './measure/rebuild-moves';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);
const fmt = (n: number | null) => (n === null ? '—' : Math.abs(n) >= 100 ? n.toFixed(0) : String(n));

async function main(): Promise<void> {
  const i = process.argv.indexOf('--turns');
  const turns = i >= 0 ? Number(process.argv[i + 1]) : 10_000;
  if (!Number.isSafeInteger(turns) || turns < 10) throw new Error('--turns must be an integer ≥ 10');
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const root = fs.mkdtempSync(path.join(base, 'alf-lineage-bench-moves-'));
  try {
    const started = performance.now();
    const history = await buildHistory({ root, turns, builder: 'pipeline', log });
    log(`  history built in ${(history.buildMs / 1000).toFixed(1)} s`);
    const ledger = openLedger(history.dataDir);
    const result = await measureRebuildWithMoves({ ledger, reps: 2, last: lastRunRate(path.join(BENCH_DIR, 'results.json')), workDir: root, log });
    closeDatabase(ledger.db);
    result.note += `; history of ${turns} turns built in ${(history.buildMs / 1000).toFixed(0)} s, measured ${new Date().toISOString()}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}, total ${((performance.now() - started) / 1000).toFixed(0)} s`;
    fs.writeFileSync(path.join(BENCH_DIR, 'results-rebuild-moves.json'), `${JSON.stringify({ turns, results: [result] }, null, 2)}\n`);
    putResultRow(path.join(BENCH_DIR, 'RESULTS.md'), result, fmt);
    process.stdout.write(`${JSON.stringify({ results: [result] })}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
