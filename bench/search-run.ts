/**
 * `tsx bench/search-run.ts [--turns N] [--work DIR] [--keep]`: only the search rows — builds the
 * generated history (as `npm run bench` does), runs search_vs_git_log_S (the substring peer) and
 * the whole-token, two-word and phrase rows of measure/search-queries.ts, and writes
 * bench/results-search.json. The full bench stays `npm run bench`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { buildHistory } from './history/build';
import { measureSearch } from './measure/search';
import { measureSearchQueries } from './measure/search-queries';
import { machineInfo } from './report';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
  const turns = Number(value('turns') ?? 10_000);
  const base = value('work') ?? (fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
  const root = fs.mkdtempSync(path.join(base, 'alf-lineage-search-bench-'));
  const started = performance.now();
  try {
    const history = await buildHistory({ root, turns, builder: 'pipeline', log });
    log(`  history built in ${(history.buildMs / 1000).toFixed(1)} s`);
    const ledger = openLedger(history.dataDir);
    const substring = await measureSearch({ history, db: ledger.db, oursReps: 25, gitReps: 3, agentFacts: 4, log });
    const tokens = await measureSearchQueries({ history, db: ledger.db, oursReps: 25, gitReps: 3, log });
    closeDatabase(ledger.db);
    const out = {
      date: new Date().toISOString(), machine: machineInfo(), turns,
      results: [...substring.results, ...tokens.results],
      mismatches: [...substring.mismatches, ...tokens.mismatches],
      build_s: round1(history.buildMs / 1000), wall_s: round1((performance.now() - started) / 1000), loadavg: os.loadavg(),
    };
    fs.writeFileSync(path.join(BENCH_DIR, 'results-search.json'), `${JSON.stringify(out, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    if (!argv.includes('--keep')) fs.rmSync(root, { recursive: true, force: true });
    else log(`kept ${root}`);
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;

main().catch((error: unknown) => {
  process.stderr.write(`search bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
