/**
 * `npm run bench [-- --quick]`: builds a generated OpenClaw v4.1 history through our sync pipeline
 * and as a git repository, measures our history queries, indexing and sync against peers run in
 * the same process, prints one JSON line last and writes bench/results.json + bench/RESULTS.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { buildHistory, type Builder } from './history/build';
import type { BenchResult } from './lib/result';
import { median, percentile } from './lib/stats';
import { measureDownload } from './measure/download';
import { measureDownloadFixedSize } from './measure/download-fixed';
import { runIngestHttp } from './measure/external';
import { measureHttpSearch } from './measure/http-search';
import { measureIndexBreakdown } from './measure/index-floor';
import { measureIndexRate } from './measure/index-rate';
import { lastRunRate, measureRebuildWithMoves } from './measure/rebuild-moves';
import { measureLedgerSize } from './measure/ledger-size';
import { measureSearch } from './measure/search';
import { measureSync50kInChild } from './measure/sync-50k';
import { measureSyncTurn } from './measure/sync-turn';
import { machineInfo, writeReport } from './report';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const log = (line: string) => process.stderr.write(`${line}\n`);

function parseArgs(argv: string[]) {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string) => {
    const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i < 0) return undefined;
    const a = argv[i]!;
    return a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
  };
  const quick = flag('quick');
  const builder = (value('builder') ?? 'pipeline') as Builder;
  if (builder !== 'pipeline' && builder !== 'sync') throw new Error(`--builder must be pipeline or sync, got ${builder}`);
  const turns = Number(value('turns') ?? (quick ? 2000 : 10_000));
  if (!Number.isSafeInteger(turns) || turns < 100) throw new Error('--turns must be an integer ≥ 100');
  return {
    quick, builder, turns, keep: flag('keep'), work: value('work'),
    skip50k: flag('skip-50k'), skipHttp: flag('skip-http'), skipIngest: flag('skip-ingest'),
    reps: quick
      ? { searchOurs: 15, searchGit: 1, agentFacts: 4, download: 5, indexOurs: 1, indexPeer: 3, syncTurn: 10, sync50k: 3, sync50kCli: 2 }
      : { searchOurs: 25, searchGit: 3, agentFacts: 4, download: 11, indexOurs: 2, indexPeer: 3, syncTurn: 30, sync50k: 9, sync50kCli: 3 },
  };
}

function workRoot(explicit: string | undefined, prefix: string): string {
  const base = explicit ?? (fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
  fs.mkdirSync(base, { recursive: true });
  return fs.mkdtempSync(path.join(base, prefix));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const machine = machineInfo();
  const started = performance.now();
  const results: BenchResult[] = [];
  const notes: string[] = [];
  const historyRoot = workRoot(args.work, 'alf-lineage-bench-');
  const storeRoot = workRoot(os.tmpdir(), 'alf-lineage-bench-50k-');
  log(`bench (${args.quick ? 'quick' : 'full'}): ${args.turns} turns, builder ${args.builder}, history in ${historyRoot}`);
  try {
    const history = await buildHistory({ root: historyRoot, turns: args.turns, builder: args.builder, log });
    const sorted = history.syncMs.slice(1);
    log(`  history built in ${(history.buildMs / 1000).toFixed(1)} s`);
    notes.push(`History: ${args.turns} turns (one sync each, 3 h apart, 8 per day), ${history.facts.length} planted facts, ${history.sizes.at(-1)!.files} files / ${(history.sizes.at(-1)!.bytes / 1024).toFixed(0)} KiB at the end; built with the \`${args.builder}\` builder in ${(history.buildMs / 1000).toFixed(1)} s (per-sync median ${median(sorted).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, first-500 median ${median(sorted.slice(0, 500)).toFixed(1)} ms, last-500 median ${median(sorted.slice(-500)).toFixed(1)} ms), git peer by \`git fast-import\` in the same pass; work directory ${path.dirname(historyRoot)}.`);
    const ledger = openLedger(history.dataDir);

    const search = await measureSearch({ history, db: ledger.db, oursReps: args.reps.searchOurs, gitReps: args.reps.searchGit, agentFacts: args.reps.agentFacts, log });
    results.push(...search.results);
    if (search.mismatches.length > 0) notes.push(`Search mismatches: ${search.mismatches.join('; ')}`);
    if (!args.skipHttp) {
      const http = await measureHttpSearch({ history, gitMedianMs: search.gitMedianMs, reps: 10, repo: REPO, log }).catch((e: Error) => ({ skipped: e.message }));
      if ('skipped' in http) notes.push(`HTTP search figure skipped: ${http.skipped}.`);
      else results.push(http);
    }
    results.push(...(await measureDownload({ history, db: ledger.db, reps: args.reps.download, log })));
    results.push(await measureDownloadFixedSize({ turns: args.turns, reps: args.reps.download, log }));
    const indexRate = await measureIndexRate({ ledger, workDir: historyRoot, oursReps: args.reps.indexOurs, peerReps: args.reps.indexPeer, log });
    results.push(indexRate, ...measureIndexBreakdown({ ledger, peerRate: indexRate.peer!, reps: args.reps.indexOurs, log }));
    results.push(await measureRebuildWithMoves({ ledger, reps: args.reps.indexOurs, last: lastRunRate(path.join(BENCH_DIR, 'results.json')), log }));
    results.push(await measureSyncTurn({ history, turns: args.reps.syncTurn, log }));
    closeDatabase(ledger.db);
    results.push(...(await measureLedgerSize({ history, log })));

    if (!args.skip50k) {
      results.push(...(await measureSync50kInChild({ root: storeRoot, files: 500, sections: 100, reps: args.reps.sync50k, cliReps: args.reps.sync50kCli, log })));
    }
    if (!args.skipIngest) {
      const ingest = await runIngestHttp({ repo: REPO, quick: args.quick, timeoutMs: args.quick ? 180_000 : 900_000, log });
      if ('skipped' in ingest) notes.push(`HTTP ingest figures skipped: ${ingest.skipped}.`);
      else results.push(...ingest);
    }
  } finally {
    if (!args.keep) {
      fs.rmSync(historyRoot, { recursive: true, force: true });
      fs.rmSync(storeRoot, { recursive: true, force: true });
    } else log(`kept ${historyRoot} and ${storeRoot}`);
  }
  notes.push(`Total bench wall time ${((performance.now() - started) / 1000).toFixed(0)} s; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}.`);
  writeReport(BENCH_DIR, {
    mode: args.quick ? 'quick' : 'full',
    date: new Date().toISOString(),
    machine,
    settings: { turns: args.turns, builder: args.builder, ...args.reps },
    results,
    notes,
  });
  process.stdout.write(`${JSON.stringify({ results })}\n`, () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
