/**
 * Dashboard API route handlers called in process over one embedded data directory (1 agent, a
 * snapshot of 2,000 records + DELTAS deltas): the per-request cost of the handler and its storage
 * path, for the storage-seam before/after comparison (issue 21 §1: the embedded speed must not
 * regress). Writes nothing; prints one JSON line.
 *
 *   npx tsx bench/seam-api.ts [--deltas 100] [--reps 300]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeDatabase } from '@/db/client';
import { openLedger, registerAgent } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { guardHeaders } from '@/lib/server/scope-header';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const DELTAS = arg('deltas', 100);
const REPS = arg('reps', 300);

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-seam-'));
  const agent = randomUUID();
  const ledger = openLedger(dataDir);
  registerAgent({ ledger, id: agent, name: 'bench', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  await ingestSnapshot({ ledger, agentId: agent, bytes: await snapshotBytes(agent, { records: 2000 }), now: new Date() });
  for (let n = 0; n < DELTAS; n += 1) await ingestDelta({ ledger, agentId: agent, baseSequence: n, bytes: await deltaBytes(agent, n, n + 1), now: new Date() });
  closeDatabase(ledger.db);
  process.env.LINEAGE_DATA = dataDir;
  const rows: [string, string, () => Promise<{ GET: Handler }>, Record<string, string>][] = [
    ['agents', '/api/agents', () => import('@/app/api/agents/route') as Promise<{ GET: Handler }>, {}],
    ['records', `/api/agents/${agent}/records?limit=50`, () => import('@/app/api/agents/[id]/records/route') as Promise<{ GET: Handler }>, { id: agent }],
    ['sequences', `/api/agents/${agent}/sequences`, () => import('@/app/api/agents/[id]/sequences/route') as Promise<{ GET: Handler }>, { id: agent }],
    ['sequence', `/api/agents/${agent}/sequences/${DELTAS}`, () => import('@/app/api/agents/[id]/sequences/[seq]/route') as Promise<{ GET: Handler }>, { id: agent, seq: String(DELTAS) }],
    ['changes', '/api/changes?since=30d', () => import('@/app/api/changes/route') as Promise<{ GET: Handler }>, {}],
    ['search', '/api/search?q=fact', () => import('@/app/api/search/route') as Promise<{ GET: Handler }>, {}],
    ['workspace', `/api/agents/${agent}/workspace`, () => import('@/app/api/agents/[id]/workspace/route') as Promise<{ GET: Handler }>, { id: agent }],
  ];
  const out: Record<string, { p50_ms: number; p99_ms: number }> = {};
  for (const [name, url, load, params] of rows) {
    const { GET } = await load();
    const times: number[] = [];
    for (let i = 0; i < REPS + 20; i += 1) {
      const t0 = performance.now();
      const res = await GET(new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) }), { params: Promise.resolve(params) });
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      if (i >= 20) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    out[name] = { p50_ms: Number(times[Math.floor(times.length / 2)]!.toFixed(3)), p99_ms: Number(times[Math.ceil(times.length * 0.99) - 1]!.toFixed(3)) };
  }
  rmSync(dataDir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ benchmark: 'seam-api', deltas: DELTAS, reps: REPS, loadavg: os.loadavg().map((l) => Number(l.toFixed(2))), rows: out })}\n`);
}

void main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
