/**
 * `stall_*`: do other requests wait while the server does something big? (issue 18 §5) A probe
 * sends `GET /agents/{id}` (a small authenticated JSON read) every 10 ms, one at a time, and its
 * latencies are taken (a) idle, (b) while a 200,000-record snapshot is uploaded and ingested, and
 * (c) while a 20,000-file workspace is streamed as a .zip. Goal: p99 under 100 ms during (b) and
 * (c). The server runs in its own process (bench/stall/server.ts). Writes bench/results-stall.json.
 *
 *   npx tsx bench/stall.ts [--records 200000] [--files 20000]
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase, openDatabase } from '@/db/client';
import { writeSnapshot } from '@/lib/core/archive';
import type { MemoryRecord } from '@/lib/core/record';
import { createApiKey } from '@/lib/server/api-keys';
import { record } from '@/tests/server/archives';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const RECORDS = arg('records', 200_000);
const FILES = arg('files', 20_000);
const PROBE_EVERY_MS = 10;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(url: string, init: { method?: string; key: string; body?: Uint8Array; type?: string }): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${init.key}` };
    if (init.body) Object.assign(headers, { 'content-type': init.type ?? 'application/octet-stream', 'content-length': init.body.byteLength });
    // Big bodies on a fresh connection: a kept-alive one may have been closed by the server meanwhile (EPIPE).
    const req = http.request(url, { method: init.method ?? 'GET', agent: init.body && init.body.byteLength > 65536 ? false : agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

async function startServer(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/stall/server.ts'), dataDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  child.stderr.on('data', (c: Buffer) => process.stderr.write(`server: ${c.toString()}`));
  const exited = new Promise<void>((r) => child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`server exited: ${code ?? signal}\n`);
    r();
  }));
  return { url, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

/** Probes until `work` settles; returns the work's result, its duration and the probe latencies. */
async function probeDuring<T>(probe: () => Promise<unknown>, work: () => Promise<T>): Promise<{ result: T; ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await probe();
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  running = false;
  await loop;
  return { result, ms, latencies };
}

function stats(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  const r = (n: number) => Number(n.toFixed(1));
  return { probes: sorted.length, p50: r(at(50)), p99: r(at(99)), max: r(sorted[sorted.length - 1] ?? NaN) };
}

const manifest = (id: string, name: string) => ({ alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id, name, source_runtime: 'openclaw' }, layers: {} });

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-stall-'));
  const db = openDatabase(dataDir);
  const key = createApiKey({ db, name: 'bench', now: new Date() }).key;
  closeDatabase(db);
  const server = await startServer(dataDir);
  try {
    const register = async (id: string) => {
      const r = await request(`${server.url}/agents`, { method: 'POST', key, type: 'application/json', body: Buffer.from(JSON.stringify({ id, name: 'stall', source_runtime: 'openclaw' })) });
      if (r.status !== 201) throw new Error(`register: ${r.status} ${r.body}`);
    };
    const probeAgent = randomUUID();
    await register(probeAgent);
    const probe = async () => {
      const r = await request(`${server.url}/agents/${probeAgent}`, { key });
      if (r.status !== 200) throw new Error(`probe: ${r.status}`);
    };

    process.stderr.write('stall: idle probes…\n');
    const idle = await probeDuring(probe, () => new Promise((r) => setTimeout(r, 3000)));

    const big = randomUUID();
    await register(big);
    process.stderr.write(`stall: writing a ${RECORDS}-record snapshot…\n`);
    const records: MemoryRecord[] = Array.from({ length: RECORDS }, (_, i) => ({
      ...record(big, i + 1, `fact number ${i} about the thing ${i % 977}`),
      // Spread over 80 quarterly partitions (one partition may not inflate past 64 MiB).
      temporal: { created_at: `${2000 + (i % 20)}-${String((i % 12) + 1).padStart(2, '0')}-15T10:00:00Z` },
    }));
    const snapshot = await writeSnapshot({ manifest: manifest(big, 'big'), records, layers: {}, raw: new Map(), extra: new Map() });
    process.stderr.write(`stall: uploading it (${(snapshot.byteLength / 1e6).toFixed(1)} MB)…\n`);
    const upload = await probeDuring(probe, () => request(`${server.url}/agents/${big}/snapshot`, { method: 'PUT', key, body: snapshot }));
    if (upload.result.status !== 201) throw new Error(`upload: ${upload.result.status} ${upload.result.body}`);

    const wide = randomUUID();
    await register(wide);
    const raw = new Map<string, Uint8Array>();
    for (let i = 0; i < FILES; i++) raw.set(`raw/openclaw/notes/${i % 100}/note-${i}.md`, Buffer.from(`# Note ${i}\n\n${randomBytes(48).toString('base64')} ${'text '.repeat(i % 40)}\n`));
    const wideBytes = await writeSnapshot({ manifest: manifest(wide, 'wide'), records: [], layers: {}, raw, extra: new Map() });
    const stored = await request(`${server.url}/agents/${wide}/snapshot`, { method: 'PUT', key, body: wideBytes });
    if (stored.status !== 201) throw new Error(`wide snapshot: ${stored.status} ${stored.body}`);
    process.stderr.write(`stall: streaming a ${FILES}-file .zip…\n`);
    const zip = await probeDuring(probe, () => request(`${server.url}/bench/zip?agent=${wide}&seq=0`, { key }));
    if (zip.result.status !== 200) throw new Error(`zip: ${zip.result.status}`);

    const during = { upload: stats(upload.latencies), zip: stats(zip.latencies) };
    const result = {
      benchmark: 'stall',
      description: 'latency of a small authenticated GET /agents/{id}, probed every 10 ms one at a time, against a protocol server in its own process',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, load: os.loadavg().map((l) => Number(l.toFixed(2))) },
      goal: 'p99 < 100 ms during the upload and during the download',
      idle_ms: stats(idle.latencies),
      upload: { records: RECORDS, bytes: snapshot.byteLength, seconds: Number((upload.ms / 1000).toFixed(2)), probe_ms: during.upload, meets_goal: during.upload.p99 < 100 },
      zip_download: { files: FILES, bytes: zip.result.body.byteLength, seconds: Number((zip.ms / 1000).toFixed(2)), probe_ms: during.zip, meets_goal: during.zip.p99 < 100 },
    };
    writeFileSync(path.join(root, 'bench', 'results-stall.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
