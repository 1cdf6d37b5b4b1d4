/**
 * A page of a sequence's raw files on PostgreSQL counts each of its files' ops through the
 * C-collated (agent_id, seq, entry_kind, origin_file) index — an index-only lookup per file, never
 * a scan of the sequence's versions — at a size where a scan would matter (a first sync of 20,000
 * memories in 200 files), shown by EXPLAIN of exactly the query the verb runs, not by a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { writeSnapshot } from '@/lib/core/archive';
import type { MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';
import { NS } from '@/lib/core/ids';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';
import { rawPageQuery } from './sequence-raw';

const AGENT = '7d7d7d7d-3333-4a2b-8c3d-00000000c001';
const NOW = new Date('2026-11-06T09:00:00Z');
const FILES = 200;
const RECORDS = 20_000;
const file = (i: number) => `memory/notes-${String(i % FILES).padStart(3, '0')}.md`;
let db: PgLineageDb;
let storage: LineageStorage;

type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Relation Name'?: string; Plans?: PlanNode[] };

async function planOf(cursor?: string): Promise<PlanNode[]> {
  const { text, params } = rawPageQuery({ agentId: AGENT, seq: 0, limit: 100, cursor });
  const plan = (await db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, params.values)).rows[0]['QUERY PLAN'][0].Plan as PlanNode;
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return nodes;
}

beforeAll(async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  db = await openPgDatabase(url);
  const client = testS3Client(settings);
  const location = { bucket, prefix: '' };
  storage = scaleOutStorage({ db, blobs: new S3BlobStore(client, location), client, location });
  await storage.registerAgent({ id: AGENT, name: 'plan', sourceRuntime: 'openclaw', tenantId: null, now: NOW });
  const records: MemoryRecord[] = Array.from({ length: RECORDS }, (_, i) => ({
    id: uuidV5(NS.alf, `raw-plan:${i}`), agent_id: AGENT, content: `note ${i}`, memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'workspace', origin_file: file(i) },
    raw_source_format: { heading: null, line_start: 1 }, temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'daily', tags: [],
  }));
  const raw = new Map(Array.from({ length: FILES }, (_, i) => [`raw/openclaw/${file(i)}`, new TextEncoder().encode(`# notes ${i}\n`)] as const));
  const manifest = { alf_version: '1.0.0', created_at: NOW.toISOString(), agent: { id: AGENT, name: 'plan', source_runtime: 'openclaw' } };
  await storage.ingestSnapshot({ agentId: AGENT, bytes: await writeSnapshot({ manifest, records, layers: {}, raw, extra: new Map() }), now: NOW });
  await db.pool.query('ANALYZE');
}, 240_000);
afterAll(async () => storage?.close());

describe('the PostgreSQL raw-file page at 20,000 versions in one sequence', () => {
  it('counts each file of the page by an index-only lookup on record_versions_seq_file_idx, never scanning the versions', async () => {
    const first = (await storage.getSequence({ agentId: AGENT, seq: 0, opsLimit: 100, rawLimit: 100 }))!;
    expect([first.raw.length, first.raw_count, first.raw[0]!.record_count]).toEqual([100, FILES, RECORDS / FILES]);
    for (const cursor of [undefined, first.raw_cursor!]) {
      const nodes = await planOf(cursor);
      // The only read of record_versions (the raw files' own table, 200 rows here, may be scanned).
      const onVersions = nodes.filter((n) => n['Relation Name'] === 'record_versions');
      expect(onVersions.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Only Scan', 'record_versions_seq_file_idx']]);
    }
  });
});
