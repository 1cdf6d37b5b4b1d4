/**
 * The HTTP ingest load of `bench/ingest-http.ts`, shared with `bench/scale-out`: `lineage serve`
 * child processes, a keep-alive node:http client, agents registered with a first snapshot, and N
 * agents each syncing its deltas one after another on its own latest base (like real clients),
 * spread over one or more servers. CPU time is read from /proc so a server's cost per delta can be
 * told from the client's on a shared 2-core machine.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
export function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return null;
  }
}

export interface ServeProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * `lineage serve --no-ui --port 0 <args>` as a child of node itself (not npx, so stopping it stops
 * the server); `cpuProfDir` runs it under `--cpu-prof`. Resolves with the URL it prints.
 */
export async function spawnLineageServe(params: {
  root: string; args: string[]; env?: Record<string, string>; cpuProfDir?: string;
}): Promise<ServeProcess> {
  const prof = params.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${params.cpuProfDir}`] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(params.root, 'lib/cli/main.ts'), 'serve', '--no-ui', '--port', '0', ...params.args], {
    cwd: params.root, env: { ...process.env, ...params.env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { url, pid: child.pid!, stop: async () => { if (child.exitCode === null) child.kill('SIGTERM'); await exited; } };
}

export interface LoadClient {
  post(url: string, key: string, body: Uint8Array, method?: string): Promise<{ status: number; json: any }>;
  destroy(): void;
}

// node:http with keep-alive rather than fetch: the client shares the 2 cores with the server, and
// undici's fetch costs several times more CPU per request than a plain http.request.
export function loadClient(): LoadClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post: LoadClient['post'] = (url, key, body, method = 'POST') => new Promise((resolve, reject) => {
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
  return { post, destroy: () => agent.destroy() };
}

/** Registers `count` agents on `url` and uploads each one's first snapshot (50 records); their ids. */
export async function registerAgents(params: { client: LoadClient; url: string; key: string; count: number }): Promise<string[]> {
  const { client, url, key } = params;
  const agents = Array.from({ length: params.count }, () => randomUUID());
  for (const id of agents) {
    const reg = await fetch(`${url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ id, name: 'bench', source_runtime: 'openclaw' }) });
    if (reg.status !== 201) throw new Error(`register failed: ${reg.status}`);
    const snap = await client.post(`${url}/v1/agents/${id}/snapshot`, key, await snapshotBytes(id, { records: 50 }), 'PUT');
    if (snap.status !== 201) throw new Error(`snapshot failed: ${JSON.stringify(snap.json)}`);
  }
  return agents;
}

/** Each agent's deltas on bases `from` … `from + count - 1` (the bytes made before the clock starts). */
export function deltaBodies(agents: readonly string[], count: number, from = 0): Promise<Uint8Array[][]> {
  return Promise.all(agents.map(async (id) => {
    const list: Uint8Array[] = [];
    for (let n = from; n < from + count; n += 1) list.push(await deltaBytes(id, n, n + 1));
    return list;
  }));
}

/**
 * Every agent sends its deltas in order, all agents at once. Delta n of agent a goes to server
 * `(a + n) % urls.length`: a round-robin load balancer, so consecutive deltas of one agent land on
 * different processes when there are several. Returns the wall time and each request's latency.
 */
export async function runDeltaLoad(params: {
  client: LoadClient; urls: readonly string[]; key: string; agents: readonly string[]; bodies: Uint8Array[][]; from?: number;
}): Promise<{ seconds: number; latencies: number[] }> {
  const { client, urls, key } = params;
  const from = params.from ?? 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(params.agents.map(async (id, a) => {
    const bodies = params.bodies[a]!;
    for (let i = 0; i < bodies.length; i += 1) {
      const base = from + i;
      const url = urls[(a + i) % urls.length]!;
      const t0 = performance.now();
      const reply = await client.post(`${url}/v1/agents/${id}/deltas?base_sequence=${base}`, key, bodies[i]!);
      latencies.push(performance.now() - t0);
      if (reply.status !== 201) throw new Error(`delta on base ${base} of ${id}: ${reply.status} ${JSON.stringify(reply.json)}`);
    }
  }));
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((x, y) => x - y) };
}

/** The p-th percentile of ascending `sorted` (nearest rank). */
export function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
