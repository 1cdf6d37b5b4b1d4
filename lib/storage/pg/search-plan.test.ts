/**
 * The PostgreSQL search's candidate query uses the trigram GIN index for a rare word at a size
 * where it matters (30,000 versions), shown by EXPLAIN, not by a time. The trap: the planner
 * estimates a regular expression's matches from the contents sampled by the last ANALYZE. Here
 * that ANALYZE ran when the index held one small agent whose every memory said "zanzibar"; then a
 * 30,000-record snapshot arrives in which 20 do. With those stale samples the planner takes
 * "zanzibar" for a word of every version and scans the whole table; the ingest refreshes the
 * statistics after so big a write (statistics.ts), and the rebuild always does, so the plan is a
 * GIN bitmap scan. Autovacuum is off on this database, so only those refreshes can change the samples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { writeSnapshot } from '@/lib/core/archive';
import type { MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';
import { NS } from '@/lib/core/ids';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { parseSearchQuery } from '@/lib/history/search/parse-query';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';
import { candidateQuery } from './search';
import { TRIGRAM_INDEX } from './statistics';

const SMALL = '7d7d7d7d-3333-4a2b-8c3d-00000000b001';
const BIG = '7d7d7d7d-3333-4a2b-8c3d-00000000b002';
const NOW = new Date('2026-11-06T09:00:00Z');
const WORDS = ['redis', 'gateway', 'kafka', 'postgres', 'nginx', 'docker', 'tailscale', 'grafana', 'backup', 'vlan'];
let db: PgLineageDb;
let storage: LineageStorage;
let smallPending = 0;

/** Pages in the trigram index's pending list (GIN fastupdate), which every search reads whole. */
async function pendingPages(): Promise<number> {
  return (await db.pool.query(`SELECT pending_pages FROM pgstatginindex('${TRIGRAM_INDEX}')`)).rows[0].pending_pages;
}

function snapshot(agentId: string, count: number, content: (i: number) => string): Promise<Uint8Array> {
  const records: MemoryRecord[] = Array.from({ length: count }, (_, i) => ({
    id: uuidV5(NS.alf, `plan:${agentId}:${i}`), agent_id: agentId, content: content(i), memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'workspace', origin_file: `memory/notes-${i % 40}.md` },
    raw_source_format: { heading: null, line_start: 1 }, temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'daily', tags: [],
  }));
  const manifest = { alf_version: '1.0.0', created_at: NOW.toISOString(), agent: { id: agentId, name: 'plan', source_runtime: 'openclaw' } };
  return writeSnapshot({ manifest, records, layers: {}, raw: new Map(), extra: new Map() });
}

/** The plan's node types and index names, from EXPLAIN of exactly the query the search runs. */
async function planOf(q: string): Promise<{ nodes: string[]; indexes: string[] }> {
  const { text, params } = candidateQuery(parseSearchQuery(q).terms, {});
  const plan = (await db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, params.values)).rows[0]['QUERY PLAN'][0].Plan;
  const nodes: string[] = [];
  const indexes: string[] = [];
  const walk = (node: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
    nodes.push(node['Node Type']);
    if (node['Index Name']) indexes.push(node['Index Name']);
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  walk(plan);
  return { nodes, indexes };
}

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  db = await openPgDatabase(url);
  await db.pool.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
  await db.pool.query('ALTER TABLE record_versions SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)');
  const client = testS3Client(settings);
  const location = { bucket, prefix: '' };
  storage = scaleOutStorage({ db, blobs: new S3BlobStore(client, location), client, location });
  for (const id of [SMALL, BIG]) await storage.registerAgent({ id, name: 'plan', sourceRuntime: 'openclaw', tenantId: null, now: NOW });
  await storage.ingestSnapshot({ agentId: SMALL, bytes: await snapshot(SMALL, 300, (i) => `zanzibar ferry ${i}`), now: NOW });
  smallPending = await pendingPages();
  // What autovacuum would have sampled at that time.
  await db.pool.query('ANALYZE record_versions');
  const big = await snapshot(BIG, 30_000, (i) => `note ${i}: ${WORDS[i % WORDS.length]} on host-${i % 997} in rack ${i % 31}, `
    + `checked ${WORDS[(i * 7) % WORDS.length]} and ${WORDS[(i * 3) % WORDS.length]} after the ${i % 12}:00 window${i % 1500 === 7 ? ' via zanzibar' : ''}`);
  await storage.ingestSnapshot({ agentId: BIG, bytes: big, now: NOW });
}, 240_000);
afterAll(async () => storage?.close());

describe('the PostgreSQL search plan at 30,000 versions', () => {
  it('a rare word is looked up through the trigram GIN index after a big ingest, not by a sequential scan', async () => {
    expect((await db.pool.query("SELECT count(*)::int AS n FROM record_versions WHERE op <> 'delete'")).rows[0].n).toBe(30_300);
    const plan = await planOf('zanzibar');
    expect(plan.indexes).toContain('record_versions_content_trgm_idx');
    expect(plan.nodes).not.toContain('Seq Scan');
    const result = await storage.search({ q: 'zanzibar', agentId: BIG });
    expect(result.total).toBe(20);
  });

  it('the trigram index\'s pending list is merged after a big ingest (a small ingest leaves it to the maintenance sweep: next; after a rebuild: below)', async () => {
    expect(smallPending).toBeGreaterThan(0);
    expect(await pendingPages()).toBe(0);
    await storage.ingestSnapshot({ agentId: SMALL, bytes: await snapshot(SMALL, 200, (i) => `ferry to pemba ${i}`), now: NOW });
    expect(await pendingPages()).toBeGreaterThan(0);
  });

  it('a serving process\'s maintenance merges what small ingests left in the pending list', async () => {
    expect(await pendingPages()).toBeGreaterThan(0);
    const maintenance = storage.startMaintenance({ log: (line) => { throw new Error(line); }, clock: () => new Date(), intervalMs: 60_000 });
    try {
      await expect.poll(pendingPages, { timeout: 30_000 }).toBe(0);
    } finally {
      await maintenance.stop();
    }
  });

  it('after a rebuild too (every row new), and for several words and words whose classes hold non-ASCII variants (k: K, U+212A)', async () => {
    await storage.rebuildIndex();
    expect(await pendingPages()).toBe(0);
    for (const q of ['zanzibar', 'ZANZIBAR ferry', 'kafka-zanzibar']) {
      const plan = await planOf(q);
      expect(plan.indexes, q).toContain('record_versions_content_trgm_idx');
      expect(plan.nodes, q).not.toContain('Seq Scan');
    }
    expect((await storage.search({ q: 'ZANZIBAR', agentId: SMALL })).total).toBe(300);
  });
});
