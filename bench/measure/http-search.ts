/**
 * The HTTP figure of the fact search: `GET /api/search?q=` against a running `lineage serve` over
 * the generated data directory. Skipped (with the reason) when the dashboard route or a production
 * build of the dashboard is not there: building it is not the benchmark's business.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BuiltHistory } from '../history/build';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';

function startServer(dataDir: string, cwd: string): Promise<{ url: string; stop: () => void }> {
  // node itself (not npx) so that stopping it stops the server, not a wrapper.
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', 'serve', '--port', '0', '--data', dataDir], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = () => {
    child.stderr.destroy();
    child.kill('SIGTERM');
  };
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`lineage serve did not print its URL within 120 s: ${err.slice(-500)}`));
    }, 120_000);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, stop });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lineage serve exited (${code}) before listening: ${err.slice(-500)}`));
    });
  });
}

export async function measureHttpSearch(args: { history: BuiltHistory; gitMedianMs: number; reps: number; repo: string; log: (l: string) => void }): Promise<BenchResult | { skipped: string }> {
  if (!fs.existsSync(path.join(args.repo, 'app/api/search/route.ts'))) return { skipped: 'app/api/search/route.ts does not exist yet' };
  if (!fs.existsSync(path.join(args.repo, '.next/BUILD_ID'))) return { skipped: 'no production build of the dashboard (.next/BUILD_ID); run `npm run build` first' };
  const server = await startServer(args.history.dataDir, args.repo);
  try {
    const perFact: number[] = [];
    for (const fact of args.history.facts) {
      const url = `${server.url}/api/search?q=${encodeURIComponent(fact.fact)}&agent=${args.history.agentId}`;
      const first = await fetch(url);
      if (first.status !== 200) return { skipped: `GET /api/search answered ${first.status} (a stale dashboard build?)` };
      const body = (await first.json()) as { first?: { sequence?: number } | null };
      if (body.first?.sequence !== fact.turn) return { skipped: `GET /api/search gave ${JSON.stringify(body.first)} for ${fact.fact}, expected sequence ${fact.turn}` };
      const times: number[] = [];
      for (let i = 0; i < args.reps; i++) {
        const t0 = performance.now();
        await (await fetch(url)).arrayBuffer();
        times.push(performance.now() - t0);
      }
      perFact.push(median(times));
    }
    const ours = median(perFact);
    args.log(`  search over HTTP: ${ours.toFixed(2)} ms`);
    return {
      name: 'search_vs_git_log_S_http', ours: round(ours), peer: round(args.gitMedianMs), ratio: round(args.gitMedianMs / ours),
      unit: 'ms (ratio = git ÷ ours)', note: `GET /api/search on a local lineage serve (keep-alive fetch), median over facts of ${args.reps} runs each`,
    };
  } finally {
    server.stop();
  }
}
