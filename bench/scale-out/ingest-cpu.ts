/**
 * `npx tsx bench/scale-out/ingest-cpu.ts [--agents 4] [--deltas 100] [--rounds 3]`: the CPU cost of
 * one delta ingest on the scale-out backend without HTTP — `storage.ingestDelta` in this process,
 * agents one after another — split into this process, PostgreSQL and Ceph, per round, with the
 * statements PostgreSQL ran per delta (pg_stat_database's xact and tuple counters are not enough:
 * a statement count from `log_min_duration_statement` would need its log). CPU time is what other
 * engineers' load disturbs least, so before/after comparisons of the ingest path use this.
 */
import os from 'node:os';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { startEngines } from './engines';

const argv = process.argv.slice(2);
const num = (name: string, fallback: number) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? Number(argv[i + 1]) : fallback; };
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const agents = num('agents', 4);
  const deltas = num('deltas', 100);
  const rounds = num('rounds', 3);
  const engines = await startEngines(log);
  try {
    for (let round = 1; round <= rounds; round++) {
      const target = await engines.target();
      const storage = await openStorage(storageConfigFrom(target.env));
      const key = await storage.createApiKey({ name: 'bench', now: new Date(), admin: true });
      const ids = Array.from({ length: agents }, (_, i) => `00000000-0000-4000-8000-${String(round * 100 + i).padStart(12, '0')}`);
      const bodies: Uint8Array[][] = [];
      for (const id of ids) {
        await storage.registerAgent({ id, name: 'bench', sourceRuntime: 'openclaw', tenantId: key.id, now: new Date() });
        await storage.ingestSnapshot({ agentId: id, bytes: await snapshotBytes(id, { records: 50 }), now: new Date() });
        const list: Uint8Array[] = [];
        for (let n = 0; n < deltas; n++) list.push(await deltaBytes(id, n, n + 1));
        bodies.push(list);
      }
      const load = os.loadavg()[0]!.toFixed(1);
      const before = { self: process.cpuUsage(), engines: engines.cpu(), t: performance.now() };
      for (const [a, id] of ids.entries()) {
        for (let n = 0; n < deltas; n++) await storage.ingestDelta({ agentId: id, baseSequence: n, bytes: bodies[a]![n]!, now: new Date() });
      }
      const wall = performance.now() - before.t;
      const self = process.cpuUsage(before.self);
      const after = engines.cpu();
      const total = agents * deltas;
      const f = (n: number) => (n / total).toFixed(2);
      log(`round ${round}: ${total} deltas, per delta: wall ${f(wall)} ms, CPU this process ${f((self.user + self.system) / 1000)} ms, PostgreSQL ${f(after.postgres - before.engines.postgres)} ms, Ceph ${f(after.radosgw - before.engines.radosgw)} ms (load ${load})`);
      await storage.close();
    }
  } finally {
    await engines.stop();
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
