/**
 * `npx tsx bench/ledger-size.ts [--turns N] [--keep]`: only the ledger-size row of the bench — builds
 * the generated history (default 10,000 syncs, as `npm run bench`), measures the ledger against the
 * git pack, writes bench/results-ledger-size.json and prints one JSON line. `--keep` leaves the
 * history's directory; `--from DIR` measures such a kept history again instead of building one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHistory, type BuiltHistory } from './history/build';
import { measureLedgerSize } from './measure/ledger-size';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const i = process.argv.indexOf('--turns');
  const turns = i > 0 ? Number(process.argv[i + 1]) : 10_000;
  const f = process.argv.indexOf('--from');
  const from = f > 0 ? process.argv[f + 1]! : null;
  const keep = process.argv.includes('--keep') || from !== null;
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const root = from ?? fs.mkdtempSync(path.join(base, 'alf-lineage-ledger-size-'));
  if (keep) log(`  history kept in ${root}`);
  try {
    const history = from
      ? ({ dataDir: path.join(root, 'data'), gitRepo: path.join(root, 'git') } as BuiltHistory)
      : await buildHistory({ root, turns, builder: 'pipeline', log });
    if (!from) log(`  history of ${turns} syncs built in ${(history.buildMs / 1000).toFixed(1)} s`);
    const results = await measureLedgerSize({ history, log });
    const out = { date: new Date().toISOString(), turns, builder: 'pipeline', results };
    fs.writeFileSync(path.join(BENCH_DIR, 'results-ledger-size.json'), `${JSON.stringify(out, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    if (!keep) fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`ledger-size bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
