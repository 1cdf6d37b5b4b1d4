/**
 * The dashboard's compare, blame and database-records reads on the embedded backend (SQLite) and on
 * PostgreSQL (a throwaway PG 15 from tests/engines), for the same history ingested into both: a
 * generated OpenClaw agent (2,000 records in 5 files, then TURNS syncs of random creates, edits,
 * deletes and moves) and a ZeroClaw-like agent of ROWS database rows. Blobs sit in a filesystem
 * store on both (these reads never touch blobs). Prints one JSON line of p50 / p90 wall times per
 * read and backend, with the load average at start and end.
 *
 *   npx tsx bench/dashboard-reads.ts [--turns 200] [--rows 2000] [--reps 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPgDatabase } from '@/db/pg/client';
import { writeSnapshot } from '@/lib/core/archive';
import type { MemoryRecord } from '@/lib/core/record';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { createS3Client } from '@/lib/ledger/s3-config';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { openEmbeddedStorage } from '@/lib/storage/embedded';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import { uploadsFrom } from '@/lib/storage/testing/synced-histories';
import type { LineageStorage } from '@/lib/storage/types';
import { startPostgres } from '@/tests/engines/postgres';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TURNS = arg('turns', 200);
const ROWS = arg('rows', 2000);
const REPS = arg('reps', 30);
const AGENT = '3f2d1c0b-2222-4a2b-8c3d-00000000beef';
const DB_AGENT = '3f2d1c0b-2222-4a2b-8c3d-00000000db00';
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

/** A ZeroClaw-like snapshot: `rows` records of no file (database rows), each with a key and a category. */
function databaseSnapshot(rows: number): Promise<Uint8Array> {
  const records = Array.from({ length: rows }, (_, i): MemoryRecord => ({
    id: `0190a000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`, agent_id: DB_AGENT, content: `row ${i}: ${'a remembered detail '.repeat(30)}`,
    memory_type: 'semantic', source: { runtime: 'zeroclaw', origin: 'brain_db' }, raw_source_format: { key: `key-${i}` }, category: 'core',
    temporal: { created_at: '2026-01-15T10:00:00Z' }, status: 'active', namespace: 'default',
  } as MemoryRecord));
  return writeSnapshot({
    manifest: { alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id: DB_AGENT, name: 'rows', source_runtime: 'zeroclaw' } },
    records, layers: {}, raw: new Map(), extra: new Map(),
  });
}

async function ingestInto(storage: LineageStorage, history: Awaited<ReturnType<typeof uploadsFrom>>): Promise<void> {
  await storage.registerAgent({ id: history.agentId, name: history.name, sourceRuntime: history.runtime, tenantId: null, now: history.uploads[0]!.now });
  for (const u of history.uploads) {
    if (u.kind === 'snapshot') await storage.ingestSnapshot({ agentId: u.agentId, bytes: u.bytes, now: u.now });
    else await storage.ingestDelta({ agentId: u.agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now });
  }
}

async function timed(run: () => Promise<unknown>): Promise<{ p50_ms: number; p90_ms: number }> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(times.length * q))]!.toFixed(2));
  return { p50_ms: at(0.5), p90_ms: at(0.9) };
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lineage-bench-dash-'));
  const pgServer = await startPostgres();
  try {
    // The history, generated into the embedded backend; then the same uploads into PostgreSQL.
    const embedded = openEmbeddedStorage(path.join(root, 'embedded'));
    const gen = new HistoryGenerator(embedded.ledger, AGENT, 7);
    gen.register();
    for (let i = 0; i < 2000; i++) gen.addRecord();
    await gen.sync(0);
    for (let turn = 1; turn <= TURNS; turn++) {
      gen.randomMutations();
      await gen.sync(turn);
    }
    const history = await uploadsFrom(embedded, AGENT);
    await embedded.registerAgent({ id: DB_AGENT, name: 'rows', sourceRuntime: 'zeroclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
    const rowsSnapshot = await databaseSnapshot(ROWS);
    await embedded.ingestSnapshot({ agentId: DB_AGENT, bytes: rowsSnapshot, now: new Date('2026-05-01T00:00:00Z') });

    const db = await openPgDatabase(pgServer.url);
    const client = createS3Client({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', forcePathStyle: true }); // never called: blobs are on disk
    const pg = scaleOutStorage({ db, blobs: new FsBlobStore(path.join(root, 'pg-blobs')), client, location: { bucket: 'unused', prefix: '' } });
    await ingestInto(pg, history);
    await pg.registerAgent({ id: DB_AGENT, name: 'rows', sourceRuntime: 'zeroclaw', tenantId: null, now: new Date('2026-05-01T00:00:00Z') });
    await pg.ingestSnapshot({ agentId: DB_AGENT, bytes: rowsSnapshot, now: new Date('2026-05-01T00:00:00Z') });
    await db.pool.query('ANALYZE');

    const latest = (await embedded.getAgent({ agentId: AGENT }))!.latest_sequence!;
    const half = Math.floor(latest / 2);
    const second = (await embedded.getDatabaseRecords({ agentId: DB_AGENT, seq: 0 }))!.next_cursor!;
    const reads: [string, (s: LineageStorage) => Promise<unknown>][] = [
      [`compare 0→${latest}`, (s) => s.compareWorkspace({ agentId: AGENT, from: 0, to: latest })],
      [`compare ${latest - 1}→${latest}`, (s) => s.compareWorkspace({ agentId: AGENT, from: latest - 1, to: latest })],
      [`blame MEMORY.md @${latest}`, (s) => s.getFileBlame({ agentId: AGENT, seq: latest, path: 'MEMORY.md' })],
      [`blame MEMORY.md @${half}`, (s) => s.getFileBlame({ agentId: AGENT, seq: half, path: 'MEMORY.md' })],
      ['database records, first page (200)', (s) => s.getDatabaseRecords({ agentId: DB_AGENT, seq: 0 })],
      ['database records, second page', (s) => s.getDatabaseRecords({ agentId: DB_AGENT, seq: 0, cursor: second })],
    ];
    const loadStart = load();
    const rows: Record<string, { sqlite: { p50_ms: number; p90_ms: number }; postgres: { p50_ms: number; p90_ms: number } }> = {};
    for (const [name, read] of reads) {
      // The answers are equal (the conformance suite's claim), checked here once on this history too.
      if (JSON.stringify(await read(embedded)) !== JSON.stringify(await read(pg))) throw new Error(`${name}: the backends answer differently`);
      rows[name] = { sqlite: await timed(() => read(embedded)), postgres: await timed(() => read(pg)) };
    }
    const versions = (await db.pool.query('SELECT count(*)::int AS n FROM record_versions')).rows[0].n as number;
    process.stdout.write(`${JSON.stringify({ benchmark: 'dashboard-reads', turns: TURNS, latest, record_versions: versions, db_rows: ROWS, reps: REPS, load_start: loadStart, load_end: load(), rows })}\n`);
    await pg.close();
    await embedded.close();
  } finally {
    await pgServer.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
