/**
 * The live-facet counters (`record_facets`): the indexer keeps them equal to the facets counted over
 * the records live at the latest sequence through edits of every facet, deletes, moves, a record
 * without a file, duplicate tier tags and a rollover; a rebuild writes the same rows; migration 0013
 * fills them with the same rows from an index written without them, and 0016 their changes per sequence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '@/lib/core/record';
import { getRecordsAt, type RecordFilters, type RecordsAtResult } from './queries/records';
import { liveFacetDelta, tiersOf } from './live-facets';
import { currentFields, recordFields, type CurrentRecord, type DerivedOp } from './index-rows';
import { rebuildIndex } from './rebuild';
import { HistoryGenerator } from './testing/generator';
import { dumpIndex, tempLedger } from './testing/temp-ledger';

const AGENT = '3f2d1c0b-5555-4a2b-8c3d-00000000f0c5';

const record = (over: Partial<MemoryRecord>): MemoryRecord => ({
  id: '00000000-0000-4000-8000-000000000001', agent_id: AGENT, content: 'x', memory_type: 'semantic', namespace: 'daily', status: 'active',
  source: { runtime: 'openclaw', origin: 'workspace', origin_file: 'MEMORY.md' }, tags: ['tier:hot'], ...over,
}) as MemoryRecord;
const current = (r: MemoryRecord, deleted = false): CurrentRecord => ({
  agent_id: AGENT, record_id: r.id, first_seq: 0, last_seq: 0, deleted_seq: deleted ? 0 : null, born_at: 't', last_changed_at: 't',
  record_json: recordFields(r).record_json,
});

describe('liveFacetDelta', () => {
  it('moves an edited record from its old values to its new ones, and counts a deleted one out', () => {
    const before = record({});
    const after = record({ status: 'archived', tags: ['tier:cold', 'tier:cold', 'x'], source: { runtime: 'openclaw', origin: 'workspace' } });
    const update: DerivedOp = { op: 'update', fields: recordFields(after), prev: current(before), moved_from: null };
    expect(liveFacetDelta([update], currentFields)).toEqual([
      { facet: 'file', value: 'MEMORY.md', count: -1 },
      { facet: 'status', value: 'active', count: -1 },
      { facet: 'status', value: 'archived', count: 1 },
      { facet: 'tier', value: 'cold', count: 1 },
      { facet: 'tier', value: 'hot', count: -1 },
    ]);
    const gone = record({ id: '00000000-0000-4000-8000-000000000002' });
    const remove: DerivedOp = { op: 'delete', fields: recordFields(gone), prev: current(gone), moved_from: null };
    const reborn: DerivedOp = { op: 'create', fields: recordFields(before), prev: current(before, true), moved_from: null };
    expect(liveFacetDelta([remove, reborn], currentFields)).toEqual([]);
    expect(tiersOf('["tier:a","tier:a","TIER:b","tier:"]')).toEqual(['a', '']);
  });
});

describe('the counters through a history', () => {
  const { ledger, cleanup } = tempLedger();
  /** What the first page said at each sequence while it was the latest (read from the counters). */
  const atLatest = new Map<number, RecordsAtResult[]>();
  const FILTERS: RecordFilters[] = [{}, { status: 'archived' }, { tier: 'hot' }, { namespace: 'curated' }, { file: 'MEMORY.md' }, { memory_type: 'nope' }];
  const firstPages = (at?: number) => FILTERS.map((f) => getRecordsAt({ db: ledger.db, agentId: AGENT, at, limit: 1, ...f })!);

  beforeAll(async () => {
    const gen = new HistoryGenerator(ledger, AGENT, 23);
    gen.register();
    for (let i = 0; i < 10; i++) gen.addRecord();
    await gen.sync(0);
    const edit = (i: number, change: (r: MemoryRecord) => MemoryRecord) => {
      gen.records = gen.records.map((r, j) => (j === i % gen.records.length ? change(r) : r));
    };
    for (let turn = 1; turn <= 30; turn++) {
      gen.randomMutations();
      if (turn % 3 === 0) edit(turn, (r) => ({ ...r, status: r.status === 'active' ? 'archived' : 'active' }));
      if (turn % 4 === 0) edit(turn + 1, (r) => ({ ...r, tags: ['tier:hot', 'tier:hot', 'tier:cold'] }));
      if (turn % 5 === 0) edit(turn + 2, (r) => ({ ...r, namespace: 'curated', memory_type: 'procedural' }));
      if (turn === 7) edit(0, (r) => ({ ...r, source: { runtime: 'openclaw', origin: 'workspace' } }));
      const done = await gen.sync(turn, { rollover: turn === 20 });
      if (done) atLatest.set(done.seq, firstPages());
    }
    await gen.sync(31, { rollover: true });
  });
  afterAll(() => cleanup());

  it('say at every sequence what counting the records live there says', () => {
    expect(atLatest.size).toBeGreaterThan(20);
    const seen = new Set<string>();
    for (const [seq, pages] of atLatest) {
      const counted = firstPages(seq);
      expect(pages.map((p) => ({ total: p.total, facets: p.facets }))).toEqual(counted.map((p) => ({ total: p.total, facets: p.facets })));
      for (const p of pages) for (const [facet, values] of Object.entries(p.facets!)) for (const v of values) seen.add(`${facet}:${v.value}`);
    }
    // The history reached every kind of value the counters keep.
    for (const v of ['status:archived', 'tier:cold', 'namespace:curated', 'memory_type:procedural', 'file:null']) expect(seen).toContain(v);
  });

  it('are written the same by a rebuild, and by migrations 0013 (from the records live now) and 0016 (their changes, from the versions)', async () => {
    const incremental = dumpIndex(ledger);
    expect(incremental.record_facets!.length).toBeGreaterThan(10);
    expect(incremental.record_facet_changes!.length).toBeGreaterThan(30);
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(incremental);

    const fill = (file: string, start: string, table: string) => {
      const migration = fs.readFileSync(path.resolve(process.cwd(), file), 'utf8');
      const statement = migration.split('--> statement-breakpoint').map((s) => s.trim()).find((s) => s.startsWith(start));
      expect(statement).toBeDefined();
      ledger.db.sqlite.exec(`DELETE FROM ${table}`);
      ledger.db.sqlite.exec(statement!);
    };
    fill('db/migrations/0013_live_facets.sql', 'WITH live', 'record_facets');
    fill('db/migrations/0016_facet_changes.sql', 'WITH nexts', 'record_facet_changes');
    expect(dumpIndex(ledger)).toEqual(incremental);
  });
});
