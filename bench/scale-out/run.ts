/**
 * `npx tsx bench/scale-out/run.ts` (issue 21 §8): the scale-out backend's speed beside the embedded
 * one, on a throwaway PostgreSQL 15 and radosgw started here (tests/engines):
 *  1. HTTP ingest, 10 agents: embedded (1 process), PostgreSQL + S3 with 1 and with 2 processes;
 *  2. search p50 on PostgreSQL vs SQLite for the bench history (copied by `lineage migrate`'s code);
 *  3. the index rebuilt from the bucket vs the embedded rebuild of the same ledger.
 * Writes bench/results-scale-out.json and the `keep:scale-out` section of bench/RESULTS.md.
 *
 *   --quick            fewer deltas and repetitions, a 2,000-turn history
 *   --only a,b         only some parts: ingest, search, rebuild (search and rebuild share the copy)
 *   --history DIR      a history kept by `npm run bench -- --keep` (with --turns as it was built)
 *   --turns N          the history's turns (default 10,000; quick 2,000)
 *   --agents N --deltas N --warmup N   the ingest load (default 10 × 200, 10 untimed first)
 *   --processes 1,2    the scale-out process counts
 *   --rebuild-reps N   rebuilds timed on each backend (default 2; quick 1)
 *   --skip-embedded    no embedded ingest row (profiling the scale-out servers)
 *   --cpu-prof DIR     servers under --cpu-prof (profiles in DIR)
 *   --pg-log FILE      PostgreSQL logs every statement with its duration; its log copied to FILE at the end
 *   --no-write         print, write no result file
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbeddedStorage } from '@/lib/storage/embedded';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { migrateDataDir } from '@/lib/storage/migrate';
import { startEngines } from './engines';
import { benchHistory } from './history';
import { ingestEmbedded, ingestScaleOut, type IngestRow } from './ingest';
import { measureRebuild, type RebuildRow } from './rebuild';
import { writeScaleOutReport, markdown, type ScaleOutReport } from './report';
import { measureSearch, type SearchRow } from './search';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ROOT = path.dirname(BENCH_DIR);
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const num = (name: string, fallback: number) => {
  const n = Number(value(name) ?? fallback);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
};
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

async function main(): Promise<void> {
  const quick = flag('quick');
  const only = new Set((value('only') ?? 'ingest,search,rebuild').split(','));
  const shape = { agents: num('agents', 10), deltas: num('deltas', quick ? 50 : 200), warmup: num('warmup', 10) };
  const turns = num('turns', quick ? 2000 : 10_000);
  const processes = (value('processes') ?? '1,2').split(',').map(Number);
  const searchReps = quick ? 7 : 25;
  const rebuildReps = num('rebuild-reps', quick ? 1 : 2);
  const cpuProfDir = value('cpu-prof');
  const started = load();
  log(`scale-out bench (${quick ? 'quick' : 'full'}): load ${started.join(' / ')}`);
  const engines = await startEngines(log);
  const pgLog = value('pg-log');
  if (pgLog) await engines.sql(engines.postgres.url, 'ALTER SYSTEM SET log_min_duration_statement = 0').then(() => engines.sql(engines.postgres.url, 'SELECT pg_reload_conf()'));
  const ingest: IngestRow[] = [];
  let search: SearchRow[] = [];
  let mismatches: string[] = [];
  let rebuild: RebuildRow | null = null;
  let historyNote: string | null = null;
  try {
    if (only.has('ingest')) {
      if (!flag('skip-embedded')) ingest.push(await ingestEmbedded({ root: ROOT, shape, log, ...(cpuProfDir ? { cpuProfDir } : {}) }));
      for (const n of processes) ingest.push(await ingestScaleOut({ root: ROOT, engines, processes: n, shape, log, ...(cpuProfDir ? { cpuProfDir } : {}) }));
    }
    if (only.has('search') || only.has('rebuild')) {
      const history = await benchHistory({ turns, from: value('history'), log });
      const target = await engines.target();
      const t0 = performance.now();
      const config = storageConfigFrom(target.env);
      if (config.backend !== 'scale-out') throw new Error('the target settings did not select the scale-out backend');
      const copied = await migrateDataDir({ dataDir: history.dataDir, target: config, progress: (m) => {
        const blobs = /^copied (\d+) blobs/.exec(m);
        if (!blobs || Number(blobs[1]) % 2000 === 0) log(`  migrate: ${m}`);
      } });
      log(`  history copied to PostgreSQL + S3 in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${copied.entries} entries, ${copied.record_versions} versions`);
      historyNote = `the ${turns}-turn bench history (${copied.entries} ledger entries, ${copied.record_versions} record versions, ${history.facts.length} planted facts), its copy made by \`lineage migrate\`'s code`;
      const sqlite = openEmbeddedStorage(history.dataDir);
      const postgres = await openStorage(config);
      try {
        if (only.has('search')) ({ rows: search, mismatches } = await measureSearch({ history, sqlite, postgres, reps: searchReps, log }));
        if (only.has('rebuild')) rebuild = await measureRebuild({ sqlite, postgres, agentId: history.agentId, reps: rebuildReps, log });
      } finally {
        await sqlite.close();
        await postgres.close();
      }
    }
  } finally {
    if (pgLog) fs.copyFileSync(path.join(engines.postgres.dir, 'server.log'), pgLog);
    await engines.stop();
  }
  const one = ingest.find((r) => r.backend === 'scale-out' && r.processes === 1);
  const two = ingest.find((r) => r.backend === 'scale-out' && r.processes === 2);
  const single = search.find((r) => r.name === 'single-token facts');
  const report: ScaleOutReport = {
    date: new Date().toISOString(),
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    machine: { cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version },
    loadavg: { start: started, end: load() },
    settings: { mode: quick ? 'quick' : 'full', agents: shape.agents, deltas_per_agent: shape.deltas, untimed_first_deltas: shape.warmup, turns, search_reps: searchReps, rebuild_reps: rebuildReps },
    history: historyNote,
    ingest, search, search_mismatches: mismatches, rebuild,
    goals: {
      two_processes_over_one: one && two ? Number((two.deltas_per_second / one.deltas_per_second).toFixed(2)) : null,
      two_processes_goal: 1.5,
      search_single_token_pg_p50_ms: single?.postgres.p50_ms ?? null,
      search_goal_ms: 3,
    },
  };
  if (flag('no-write')) process.stderr.write(`${markdown(report)}\n`);
  else writeScaleOutReport(BENCH_DIR, report);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`scale-out bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
