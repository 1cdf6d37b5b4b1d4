/**
 * `npx tsx bench/sync-rows.ts [--turns N] [--skip-turn] [--skip-50k] [--cli-reps N]`: only the sync rows of the
 * bench (issue 22), each against git in the same run: `sync_turn_vs_git_commit` (after a history
 * of N turns, default 10,000), `sync_50k_1pct`, `sync_50k_1pct_cli`, `sync_50k_1pct_resident`, `sync_idle_cli`,
 * `sync_idle_resident`,
 * `sync_cli_first_read`, `sync_50k_first`, `sync_50k_first_cli`, and the informational `node_start`,
 * `commit_floor_first[_pack]` and `commit_floor_1pct[_pack]`. Prints the results as one JSON line.
 * `--cli-reps N`: the 1% CLI syncs in a row (default 3; the row is their median, its note lists every
 * run: with 12, one of them leaves the store's log due for compaction).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildHistory } from './history/build';
import type { BenchResult } from './lib/result';
import { measureSync50kInChild } from './measure/sync-50k';
import { measureSyncTurn } from './measure/sync-turn';

const log = (line: string) => process.stderr.write(`${line}\n`);
const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i < 0 ? undefined : argv[i + 1]; };

async function main(): Promise<void> {
  const results: BenchResult[] = [];
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  if (!argv.includes('--skip-50k')) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alf-lineage-sync-rows-50k-'));
    try {
      results.push(...(await measureSync50kInChild({ root, files: 500, sections: 100, reps: 3, cliReps: Number(value('cli-reps') ?? 3), log })));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  if (!argv.includes('--skip-turn')) {
    const root = fs.mkdtempSync(path.join(base, 'alf-lineage-sync-rows-'));
    try {
      const history = await buildHistory({ root, turns: Number(value('turns') ?? 10_000), builder: 'pipeline', log });
      log(`  history built in ${(history.buildMs / 1000).toFixed(1)} s`);
      // 30 counted turns: a turn's sync and git's commit both move by several ms from one turn to the next.
      results.push(await measureSyncTurn({ history, turns: 30, log }));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error: Error) => {
  log(error.stack ?? error.message);
  process.exit(1);
});
