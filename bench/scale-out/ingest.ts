/**
 * HTTP ingest against the embedded backend (one `lineage serve` on a data directory) and against
 * the scale-out backend (one or several `lineage serve` processes on one PostgreSQL database and
 * one bucket), with bench/lib/ingest-load.ts's clients: every agent syncs its deltas one after
 * another, the deltas spread round-robin over the processes. A few deltas per agent are sent
 * first and not timed (every process's first requests compile code). CPU per delta is split into
 * the servers, PostgreSQL, the Ceph daemons and the load generator.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import {
  cpuMs, deltaBodies, loadClient, nearestRank, registerAgents, runDeltaLoad, spawnLineageServe, type ServeProcess,
} from '../lib/ingest-load';
import type { Engines, Target } from './engines';

export interface IngestRow {
  name: string;
  backend: 'embedded' | 'scale-out';
  processes: number;
  agents: number;
  deltas: number;
  seconds: number;
  deltas_per_second: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  /** CPU ms per timed delta: every server together, each server, PostgreSQL, Ceph (mon + osd + radosgw), the load generator. */
  cpu_ms_per_delta: { servers: number; per_server: number[]; postgres: number | null; radosgw: number | null; client: number };
  loadavg: { start: number[]; end: number[] };
  /**
   * Share of the machine's CPU (all cores) during the timed run: what this stack used (servers +
   * PostgreSQL + Ceph + client, from /proc/PID/stat) and what every process used (/proc/stat, other
   * engineers' work included). Near 1 means the machine, not a process, set the pace.
   */
  cpu_share: { ours: number; machine: number };
}

/** Busy and total jiffies of all CPUs so far (/proc/stat's first line). */
function machineJiffies(): { busy: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3]! + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

export interface IngestShape { agents: number; deltas: number; warmup: number }

const r2 = (n: number) => Number(n.toFixed(2));
const la = () => os.loadavg().map((l) => Number(l.toFixed(2)));

/** One run: `servers` already listening on the same storage, `key` valid there. */
async function drive(params: {
  name: string; backend: IngestRow['backend']; servers: ServeProcess[]; key: string; shape: IngestShape; engines?: Engines;
  log: (line: string) => void;
}): Promise<IngestRow> {
  const { servers, key, shape } = params;
  const client = loadClient();
  try {
    const urls = servers.map((s) => s.url);
    const agents = await registerAgents({ client, url: urls[0]!, key, count: shape.agents });
    const warm = await deltaBodies(agents, shape.warmup);
    const bodies = await deltaBodies(agents, shape.deltas, shape.warmup);
    await runDeltaLoad({ client, urls, key, agents, bodies: warm });
    const start = la();
    const before = { servers: servers.map((s) => cpuMs(s.pid) ?? 0), engines: params.engines?.cpu(), client: process.cpuUsage(), machine: machineJiffies() };
    const { seconds, latencies } = await runDeltaLoad({ client, urls, key, agents, bodies, from: shape.warmup });
    const clientCpu = process.cpuUsage(before.client);
    const engines = params.engines?.cpu();
    const machine = machineJiffies();
    const total = shape.agents * shape.deltas;
    const perServer = servers.map((s, i) => r2(((cpuMs(s.pid) ?? 0) - before.servers[i]!) / total));
    const row: IngestRow = {
      name: params.name, backend: params.backend, processes: servers.length, agents: shape.agents, deltas: total,
      seconds: Number(seconds.toFixed(3)), deltas_per_second: Number((total / seconds).toFixed(1)),
      latency_ms: { p50: r2(nearestRank(latencies, 50)), p90: r2(nearestRank(latencies, 90)), p99: r2(nearestRank(latencies, 99)), max: r2(latencies.at(-1)!) },
      cpu_ms_per_delta: {
        servers: r2(perServer.reduce((a, b) => a + b, 0)), per_server: perServer,
        postgres: engines && before.engines ? r2((engines.postgres - before.engines.postgres) / total) : null,
        radosgw: engines && before.engines ? r2((engines.radosgw - before.engines.radosgw) / total) : null,
        client: r2((clientCpu.user + clientCpu.system) / 1000 / total),
      },
      loadavg: { start, end: la() },
      cpu_share: { ours: 0, machine: r2((machine.busy - before.machine.busy) / (machine.total - before.machine.total)) },
    };
    const c = row.cpu_ms_per_delta;
    row.cpu_share.ours = r2(((c.servers + (c.postgres ?? 0) + (c.radosgw ?? 0) + c.client) * total) / (seconds * 1000 * os.cpus().length));
    params.log(`  ${row.name}: ${row.deltas_per_second} deltas/s, p50 ${row.latency_ms.p50} ms, p99 ${row.latency_ms.p99} ms; CPU ms/delta servers ${row.cpu_ms_per_delta.servers} (${perServer.join(' + ')}), postgres ${row.cpu_ms_per_delta.postgres}, ceph ${row.cpu_ms_per_delta.radosgw}, client ${row.cpu_ms_per_delta.client}; CPU share ours ${row.cpu_share.ours}, machine ${row.cpu_share.machine}; load ${start[0]} → ${row.loadavg.end[0]}`);
    return row;
  } finally {
    client.destroy();
  }
}

/** One `lineage serve` on a fresh data directory. */
export async function ingestEmbedded(params: { root: string; shape: IngestShape; cpuProfDir?: string; log: (line: string) => void }): Promise<IngestRow> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-scale-embedded-'));
  const db = openDatabase(dataDir);
  const key = createApiKey({ db, name: 'bench', now: new Date() }).key;
  closeDatabase(db);
  const server = await spawnLineageServe({ root: params.root, args: ['--data', dataDir], ...(params.cpuProfDir ? { cpuProfDir: params.cpuProfDir } : {}) });
  try {
    return await drive({ name: 'embedded, 1 process', backend: 'embedded', servers: [server], key, shape: params.shape, log: params.log });
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `processes` × `lineage serve` on a fresh database and bucket. */
export async function ingestScaleOut(params: {
  root: string; engines: Engines; processes: number; shape: IngestShape; cpuProfDir?: string; log: (line: string) => void;
  /** Called with the target before the servers stop (profiling: the database's statistics). */
  inspect?: (target: Target) => Promise<void>;
}): Promise<IngestRow> {
  const target = await params.engines.target();
  const storage = await openStorage(storageConfigFrom(target.env));
  const key = (await storage.createApiKey({ name: 'bench', now: new Date(), admin: true })).key;
  await storage.close();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-scale-serve-'));
  const servers: ServeProcess[] = [];
  try {
    for (let i = 0; i < params.processes; i++) {
      servers.push(await spawnLineageServe({
        root: params.root, args: [], env: { ...target.env, LINEAGE_DATA: path.join(scratch, String(i)) },
        ...(params.cpuProfDir ? { cpuProfDir: params.cpuProfDir } : {}),
      }));
    }
    const name = `PostgreSQL + S3, ${params.processes} process${params.processes === 1 ? '' : 'es'}`;
    const row = await drive({ name, backend: 'scale-out', servers, key, shape: params.shape, engines: params.engines, log: params.log });
    await params.inspect?.(target);
    return row;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
