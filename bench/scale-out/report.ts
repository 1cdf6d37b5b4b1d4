/**
 * bench/results-scale-out.json and the `<!-- keep:scale-out -->` section of bench/RESULTS.md (kept
 * by `npm run bench`'s report; replaced here in place, or added at the end the first time).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IngestRow } from './ingest';
import type { RebuildRow } from './rebuild';
import type { SearchRow } from './search';

export interface ScaleOutReport {
  date: string;
  commit: string;
  machine: { cpus: string; cores: number; node: string };
  loadavg: { start: number[]; end: number[] };
  settings: Record<string, string | number>;
  history: string | null;
  ingest: IngestRow[];
  search: SearchRow[];
  search_mismatches: string[];
  rebuild: RebuildRow | null;
  goals: { two_processes_over_one: number | null; two_processes_goal: number; search_single_token_pg_p50_ms: number | null; search_goal_ms: number };
}

const SECTION = /<!-- keep:scale-out -->[\s\S]*?<!-- \/keep -->/;
const mark = (ok: boolean | null) => (ok === null ? '' : ok ? ' ✅' : ' ❌');

export function markdown(report: ScaleOutReport): string {
  const g = report.goals;
  const ingest = report.ingest.map((r) => `| ${r.name} | ${r.deltas_per_second} | ${r.latency_ms.p50} | ${r.latency_ms.p99} | ${r.cpu_ms_per_delta.servers}${r.processes > 1 ? ` (${r.cpu_ms_per_delta.per_server.join(' + ')})` : ''} | ${r.cpu_ms_per_delta.postgres ?? '—'} | ${r.cpu_ms_per_delta.radosgw ?? '—'} | ${r.cpu_ms_per_delta.client} | ${r.cpu_share.ours} / ${r.cpu_share.machine} | ${r.loadavg.start[0]} → ${r.loadavg.end[0]} |`);
  const search = report.search.map((r) => `| ${r.name} (${r.queries}) | ${r.sqlite.p50_ms} / ${r.sqlite.p95_ms} | ${r.postgres.p50_ms} / ${r.postgres.p95_ms} | ${r.answers_equal ? 'yes' : '**no**'} |`);
  const rb = report.rebuild;
  return `<!-- keep:scale-out -->
## Scale-out: PostgreSQL + S3 (issue 21 §8, \`npx tsx bench/scale-out/run.ts\`)

Run ${report.date} at ${report.commit}: ${report.machine.cores} × ${report.machine.cpus}, Node ${report.machine.node}; load average ${report.loadavg.start.join(' / ')} at the start, ${report.loadavg.end.join(' / ')} at the end. PostgreSQL 15 (fsync off) and a one-node radosgw (memstore OSD) on the same 2 cores as the servers and the load generator. Settings: ${Object.entries(report.settings).map(([k, v]) => `${k} = ${v}`).join('; ')}. Full figures: \`bench/results-scale-out.json\`.

**HTTP ingest**, ${report.ingest[0]?.agents ?? '?'} agents each syncing deltas on its own latest base, round-robin over the processes (CPU: ms per delta, from /proc; CPU share: of both cores during the timed run, this stack's / every process's):

| backend | deltas/s | p50 ms | p99 ms | CPU servers | CPU PostgreSQL | CPU Ceph | CPU client | CPU share ours / machine | load |
|---|---:|---:|---:|---:|---:|---:|---:|---|---|
${ingest.join('\n')}

Two processes ÷ one: **${g.two_processes_over_one ?? '—'}×** (goal ≥ ${g.two_processes_goal}×${mark(g.two_processes_over_one === null ? null : g.two_processes_over_one >= g.two_processes_goal)}).

${report.search.length === 0 ? '' : `**Search** through the seam verb \`search\` (what GET /api/search calls), ${report.history ?? ''}; per-query median, then p50 / p95 over the queries (ms):

| queries | SQLite p50 / p95 | PostgreSQL p50 / p95 | same answers |
|---|---:|---:|---|
${search.join('\n')}

PostgreSQL p50 for single-token facts: **${g.search_single_token_pg_p50_ms ?? '—'} ms** (goal < ${g.search_goal_ms} ms${mark(g.search_single_token_pg_p50_ms === null ? null : g.search_single_token_pg_p50_ms < g.search_goal_ms)}). First appearances against the generator's ground truth: ${report.search_mismatches.length === 0 ? 'all match on both backends' : report.search_mismatches.join('; ')}.
`}
${rb === null ? '' : `**Rebuild** of the whole index (${rb.entries} ledger entries → ${rb.record_versions} record versions): embedded (SQLite + blob files) **${rb.embedded_median_ms} ms** (runs ${rb.embedded_ms.join(', ')}), PostgreSQL from the S3 bucket **${rb.scale_out_median_ms} ms** (runs ${rb.scale_out_ms.join(', ')}); listing the bucket and reading every blob one after another, alone, takes ${rb.s3_read_ms} ms (the rebuild reads 16 ahead, beside its fold).
`}<!-- /keep -->`;
}

export function writeScaleOutReport(benchDir: string, report: ScaleOutReport): void {
  fs.writeFileSync(path.join(benchDir, 'results-scale-out.json'), `${JSON.stringify(report, null, 2)}\n`);
  const file = path.join(benchDir, 'RESULTS.md');
  const previous = fs.readFileSync(file, 'utf8');
  const section = markdown(report);
  fs.writeFileSync(file, SECTION.test(previous) ? previous.replace(SECTION, () => section) : `${previous.trimEnd()}\n\n${section}\n`);
}
