/**
 * Folds in the server engineer's HTTP ingest benchmark (`bench/ingest-http.ts`) when it exists:
 * runs it as a child process and reads the last JSON line it prints (its own `{benchmark,
 * deltas_per_second, latency_ms, goal}` shape, or a `{results:[…]}` line). The script also writes
 * `bench/results-ingest.json`, which belongs to its owner: that file is put back byte for byte.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResult } from '../lib/result';

export async function runIngestHttp(args: { repo: string; quick: boolean; timeoutMs: number; log: (l: string) => void }): Promise<BenchResult[] | { skipped: string }> {
  const script = path.join(args.repo, 'bench/ingest-http.ts');
  if (!fs.existsSync(script)) return { skipped: 'bench/ingest-http.ts does not exist yet' };
  const owned = path.join(args.repo, 'bench/results-ingest.json');
  const before = fs.existsSync(owned) ? fs.readFileSync(owned) : null;
  try {
    return await runScript(args);
  } finally {
    if (before) fs.writeFileSync(owned, before);
    else fs.rmSync(owned, { force: true });
  }
}

interface IngestOutput {
  results?: BenchResult[];
  deltas_per_second?: number;
  latency_ms?: { p50?: number; p99?: number };
  agents?: number;
  total_deltas?: number;
  goal?: { deltas_per_second?: number; p99_ms?: number };
}

function toResults(out: IngestOutput): BenchResult[] {
  if (Array.isArray(out.results)) return out.results;
  if (typeof out.deltas_per_second !== 'number' || typeof out.latency_ms?.p99 !== 'number') throw new Error('no deltas_per_second / latency_ms.p99');
  const goalRate = out.goal?.deltas_per_second ?? 300;
  const goalP99 = out.goal?.p99_ms ?? 50;
  const what = `${out.agents ?? '?'} agents, ${out.total_deltas ?? '?'} deltas over HTTP (bench/ingest-http.ts)`;
  return [
    { name: 'ingest_http_deltas_per_s', ours: out.deltas_per_second, peer: goalRate, ratio: Number((out.deltas_per_second / goalRate).toPrecision(3)),
      unit: 'deltas/s (peer = goal; ratio = ours ÷ goal)', goal: `≥ ${goalRate}/s`, meets_goal: out.deltas_per_second >= goalRate, note: what },
    { name: 'ingest_http_p99', ours: out.latency_ms.p99, peer: goalP99, ratio: Number((out.latency_ms.p99 / goalP99).toPrecision(3)),
      unit: 'ms (peer = goal; ratio = ours ÷ goal)', goal: `< ${goalP99} ms`, meets_goal: out.latency_ms.p99 < goalP99, note: `${what}; p50 ${out.latency_ms.p50 ?? '?'} ms` },
  ];
}

async function runScript(args: { repo: string; quick: boolean; timeoutMs: number }): Promise<BenchResult[] | { skipped: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ingest-http.ts'], { cwd: args.repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGTERM'), args.timeoutMs);
    child.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code !== 0) return { skipped: `bench/ingest-http.ts exited with ${code}` };
  const last = stdout.trim().split('\n').reverse().find((l) => l.trim().startsWith('{'));
  try {
    return toResults(JSON.parse(last ?? '') as IngestOutput);
  } catch (error) {
    return { skipped: `bench/ingest-http.ts printed no result line I could read (${(error as Error).message})` };
  }
}
