/**
 * `npm run bench:ui-scale` (issue 20 §5): the generated fleet (cached, see cache.ts) served by a
 * production `lineage serve`, every page of pages.ts opened in Debian's Chromium — one warm-up visit,
 * then `--reps` measured visits each in a fresh context — and the figures written to
 * bench/results-ui-scale.json and the ui-scale section of bench/RESULTS.md. Not part of `npm test`.
 *
 *   --small        a small fleet (10 × 50, one agent of 5,000 memories × 200 syncs) to try the bench out
 *   --reps N       measured visits per page (default 20: a p95 of five visits is their slowest one)
 *   --no-write     print the table, write no result file
 *   --only A,B     only the pages whose name contains A or B (with --no-write: a partial run)
 *   --pin          the server on a CPU of its own, the bench and Chromium on the others (pin.ts)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chromium } from '@playwright/test';
import { packageRoot } from '@/lib/package-root';
import { cachedFleet } from './cache';
import { FULL_SHAPE, type UiScaleShape } from './generate';
import { visitPage, type Visit } from './measure-page';
import { benchPages, type PageIds } from './pages';
import { startBenchServer } from './serve';
import { cpuPlan, describePlan, pinSelf } from './pin';
import { GOALS, markdownTable, summarise, type PageResult } from './summary';
import { writeResultsSection } from './results-md';

const SMALL_SHAPE: UiScaleShape = { agents: 10, syncs: 50, bigMemories: 5_000, bigSyncs: 200 };
const PAGE_TIMEOUT_MS = 180_000;
const SLOW_PAGE_MS = 45_000;

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const value = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' / ');

function pageIds(dataDir: string, bigId: string, bigSyncs: number): PageIds {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true, fileMustExist: true });
  try {
    const hot = db.prepare('SELECT record_id FROM record_versions WHERE agent_id = ? GROUP BY record_id ORDER BY count(*) DESC, record_id LIMIT 1').get(bigId) as { record_id: string };
    const oldSequence = Math.floor(bigSyncs / 10);
    const oldFile = db.prepare(`SELECT origin_file FROM record_versions WHERE agent_id = ? AND seq <= ? AND origin_file IS NOT NULL
      GROUP BY origin_file ORDER BY count(*) DESC, origin_file LIMIT 1`).pluck().get(bigId, oldSequence) as string;
    return { hotRecordId: hot.record_id, oldSequence, oldFile };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const shape = flag('--small') ? SMALL_SHAPE : FULL_SHAPE;
  // With 5 visits the p95 (linear interpolation) is 0.8 × the slowest visit + 0.2 × the next: one
// slow visit out of five decided a page. 20 make it the 19th of 20.
const reps = Number(value('--reps') ?? 20);
  const loadStart = load();
  const started = performance.now();
  const fleet = await cachedFleet(shape, log);
  const ids = pageIds(fleet.dataDir, fleet.manifest.big.id, shape.bigSyncs);
  const timingLog = path.join(os.tmpdir(), `ui-scale-timing-${process.pid}.jsonl`);
  const plan = cpuPlan(flag('--pin'));
  const server = await startBenchServer({ dataDir: fleet.dataDir, timingLog, log, ...(plan ? { cpus: plan.server } : {}) });
  if (plan) pinSelf(plan.browser);
  log(`ui-scale: ${describePlan(plan)}`);
  const browser = await chromium.launch({
    executablePath: fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const results: PageResult[] = [];
  try {
    const only = value('--only')?.split(',').filter(Boolean);
    for (const page of benchPages(fleet.manifest, ids).filter((p) => !only || only.some((o) => p.name.includes(o)))) {
      const visit = () => visitPage({ browser, baseUrl: server.url, url: page.url, timingLog, timeoutMs: PAGE_TIMEOUT_MS });
      const t0 = performance.now();
      const warm = await visit();
      const warmMs = performance.now() - t0;
      // A page that takes longer than SLOW_PAGE_MS to settle is measured once: its figures miss the
      // goals by far, and six visits of it would not fit the run. One that does not settle within
      // PAGE_TIMEOUT_MS is reported from its warm-up visit alone (a failed visit).
      const count = !warm.ok ? 0 : warmMs < SLOW_PAGE_MS ? reps : 1;
      log(`ui-scale: ${page.name}: warm-up ${warm.ok ? 'ok' : `failed (${warm.error})`} in ${(warmMs / 1000).toFixed(1)} s; ${count} measured visit(s)`);
      const visits: Visit[] = warm.ok ? [] : [warm];
      for (let r = 0; r < count; r++) visits.push(await visit());
      const result = summarise(page.name, page.url, visits);
      results.push(result);
      const worst = result.requests[0]?.values;
      log(`ui-scale: ${page.name}: server p95 ${result.serverP95.ms} ms (${result.serverP95.label}${worst ? `, visit by visit ${worst.join(' ')}` : ''}), LCP p95 ${result.lcp.p95} ms, DOM ${result.domElements.max}`);
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(timingLog, { force: true });
  }
  const report = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, loadStart, loadEnd: load(), placement: describePlan(plan) },
    shape,
    fleet: { generateMs: fleet.manifest.generateMs, cached: fleet.cached, upgradedFrom: fleet.manifest.upgradedFrom ?? null, cacheDir: fleet.dir, bigAgentRecords: fleet.manifest.big.records },
    reps,
    goals: GOALS,
    wallMs: Math.round(performance.now() - started),
    pages: results,
  };
  const table = markdownTable(results);
  process.stdout.write(`${table}\n`);
  if (!flag('--no-write')) {
    const dir = path.join(packageRoot(), 'bench');
    fs.writeFileSync(path.join(dir, 'results-ui-scale.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeResultsSection(path.join(dir, 'RESULTS.md'), report, table);
    log('ui-scale: wrote bench/results-ui-scale.json and the ui-scale section of bench/RESULTS.md');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
