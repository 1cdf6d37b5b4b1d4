/**
 * Delta ingest throughput over HTTP: AGENTS agents sync deltas concurrently (each one
 * after another on its own latest base, like real clients) against a real
 * `serve --no-ui` child process. Writes bench/results-ingest.json. The load itself is
 * bench/lib/ingest-load.ts (bench/scale-out runs the same against PostgreSQL + S3).
 *
 *   npx tsx bench/ingest-http.ts [--agents 10] [--deltas 200]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { cpuMs, deltaBodies, loadClient, nearestRank, registerAgents, runDeltaLoad, spawnLineageServe } from './lib/ingest-load';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const AGENTS = arg('agents', 10);
const DELTAS = arg('deltas', 200);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-ingest-'));
  const db = openDatabase(dataDir);
  const key = createApiKey({ db, name: 'bench', now: new Date() }).key;
  closeDatabase(db);
  const server = await spawnLineageServe({ root, args: ['--data', dataDir], ...(process.env.BENCH_CPU_PROF ? { cpuProfDir: process.env.BENCH_CPU_PROF } : {}) });
  const client = loadClient();
  try {
    const agents = await registerAgents({ client, url: server.url, key, count: AGENTS });
    process.stderr.write(`bench: generating ${AGENTS * DELTAS} deltas…\n`);
    const bodies = await deltaBodies(agents, DELTAS);
    process.stderr.write(`bench: ${AGENTS} agents × ${DELTAS} deltas over HTTP…\n`);
    const serverCpuBefore = cpuMs(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const { seconds, latencies } = await runDeltaLoad({ client, urls: [server.url], key, agents, bodies });
    const serverCpuAfter = cpuMs(server.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const total = AGENTS * DELTAS;
    const result = {
      benchmark: 'ingest-http',
      description: `${AGENTS} agents syncing deltas concurrently over HTTP against lineage serve --no-ui (child process)`,
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}` },
      agents: AGENTS,
      deltas_per_agent: DELTAS,
      total_deltas: total,
      mean_delta_bytes: Math.round(bodies.flat().reduce((s, b) => s + b.byteLength, 0) / total),
      seconds: Number(seconds.toFixed(3)),
      deltas_per_second: Number((total / seconds).toFixed(1)),
      latency_ms: {
        p50: Number(nearestRank(latencies, 50).toFixed(2)),
        p90: Number(nearestRank(latencies, 90).toFixed(2)),
        p99: Number(nearestRank(latencies, 99).toFixed(2)),
        max: Number(latencies[latencies.length - 1]!.toFixed(2)),
      },
      // CPU time per delta, to tell server cost from client cost on a shared 2-core machine
      cpu_ms_per_delta: {
        server: serverCpuBefore === null || serverCpuAfter === null ? null : Number(((serverCpuAfter - serverCpuBefore) / total).toFixed(3)),
        client: Number(((clientCpu.user + clientCpu.system) / 1000 / total).toFixed(3)),
      },
      goal: { deltas_per_second: 300, p99_ms: 50 },
    };
    writeFileSync(path.join(root, 'bench/results-ingest.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    client.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
