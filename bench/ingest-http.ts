/**
 * Delta ingest throughput over HTTP: AGENTS agents sync deltas concurrently (each one
 * after another on its own latest base, like real clients) against a real
 * `serve --no-ui` child process. Writes bench/results-ingest.json.
 *
 *   npx tsx bench/ingest-http.ts [--agents 10] [--deltas 200]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const AGENTS = arg('agents', 10);
const DELTAS = arg('deltas', 200);

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return null;
  }
}

async function startServer(dataDir: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', path.join(root, 'lib/cli/main.ts'), 'serve', '--no-ui', '--port', '0', '--data', dataDir], {
    cwd: root, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { url, pid: child.pid!, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

// node:http with keep-alive rather than fetch: the client shares the 2 cores with the server, and
// undici's fetch costs several times more CPU per request than a plain http.request.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

async function post(url: string, key: string, body: Uint8Array, method = 'POST'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method, agent,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': body.byteLength },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (error) {
          reject(error);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-ingest-'));
  const db = openDatabase(dataDir);
  const key = createApiKey({ db, name: 'bench', now: new Date() }).key;
  closeDatabase(db);
  const server = await startServer(dataDir);
  try {
    const agents = Array.from({ length: AGENTS }, () => randomUUID());
    for (const id of agents) {
      const reg = await fetch(`${server.url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ id, name: 'bench', source_runtime: 'openclaw' }) });
      if (reg.status !== 201) throw new Error(`register failed: ${reg.status}`);
      const snap = await post(`${server.url}/v1/agents/${id}/snapshot`, key, await snapshotBytes(id, { records: 50 }), 'PUT');
      if (snap.status !== 201) throw new Error(`snapshot failed: ${JSON.stringify(snap.json)}`);
    }
    process.stderr.write(`bench: generating ${AGENTS * DELTAS} deltas…\n`);
    const bodies = await Promise.all(agents.map(async (id) => {
      const list: Uint8Array[] = [];
      for (let n = 0; n < DELTAS; n += 1) list.push(await deltaBytes(id, n, n + 1));
      return list;
    }));
    const latencies: number[] = [];
    process.stderr.write(`bench: ${AGENTS} agents × ${DELTAS} deltas over HTTP…\n`);
    const started = performance.now();
    const serverCpuBefore = cpuMs(server.pid);
    const clientCpuBefore = process.cpuUsage();
    await Promise.all(agents.map(async (id, a) => {
      for (let n = 0; n < DELTAS; n += 1) {
        const t0 = performance.now();
        const reply = await post(`${server.url}/v1/agents/${id}/deltas?base_sequence=${n}`, key, bodies[a]![n]!);
        latencies.push(performance.now() - t0);
        if (reply.status !== 201) throw new Error(`delta ${n} of ${id}: ${reply.status} ${JSON.stringify(reply.json)}`);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    const serverCpuAfter = cpuMs(server.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    latencies.sort((x, y) => x - y);
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
        p50: Number(percentile(latencies, 50).toFixed(2)),
        p90: Number(percentile(latencies, 90).toFixed(2)),
        p99: Number(percentile(latencies, 99).toFixed(2)),
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
    agent.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
