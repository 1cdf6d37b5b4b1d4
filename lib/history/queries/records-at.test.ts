/**
 * The Memories list at an earlier sequence (getRecordsAt with `at`): its pages, walked by cursor in
 * every order, and its first page's total and facets, against a brute-force oracle that applies the
 * rule to every version in JavaScript — per record its last row up to `at`, unless a tombstone or
 * moved away after it — over a random history with creates, edits, deletes, moves between files,
 * facet edits, a record losing its file and rollover snapshots, at every sequence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '@/lib/core/record';
import { compareBinary } from '../compare-binary';
import { tiersOf } from '../live-facets';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { getRecordsAt, RECORD_SORTS, type FacetCount, type RecordFilters, type RecordSort } from './records';

const AGENT = '3f2d1c0b-6666-4a2b-8c3d-00000000a7a7';
const PAGE = 4;

interface Version {
  id: number; record_id: string; seq: number; entry_kind: string; op: string; memory_type: string; namespace: string;
  status: string; origin_file: string | null; heading: string | null; tags: string; moved_from: string | null; content: string;
}

/** (seq, entry_kind) order, as SQLite compares them. */
const later = (a: Version, b: Version) => a.seq > b.seq || (a.seq === b.seq && compareBinary(a.entry_kind, b.entry_kind) > 0);

/** The versions live at `at`, by the rule, from every version of the agent. */
function liveByRule(versions: readonly Version[], at: number): Version[] {
  const last = new Map<string, Version>();
  for (const v of versions) {
    if (v.seq > at) continue;
    const seen = last.get(v.record_id);
    if (!seen || later(v, seen)) last.set(v.record_id, v);
  }
  const movedAway = (v: Version) => versions.some((m) => m.moved_from === v.record_id && m.seq <= at && later(m, v));
  return [...last.values()].filter((v) => v.op !== 'delete' && !movedAway(v));
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function keeps(v: Version, f: RecordFilters): boolean {
  const tags = JSON.parse(v.tags) as unknown[];
  if (f.memory_type !== undefined && v.memory_type !== f.memory_type) return false;
  if (f.namespace !== undefined && v.namespace !== f.namespace) return false;
  if (f.file !== undefined && v.origin_file !== f.file) return false;
  if (f.status !== undefined && v.status !== f.status) return false;
  if (f.tag !== undefined && !tags.includes(f.tag)) return false;
  if (f.tier !== undefined && !tags.includes(`tier:${f.tier}`)) return false;
  if (f.q !== undefined) {
    const needle = asciiLower(f.q);
    if (![v.content, v.heading ?? '', v.origin_file ?? ''].some((text) => asciiLower(text).includes(needle))) return false;
  }
  return true;
}

function ordered(live: Version[], sort: RecordSort): Version[] {
  const key = (v: Version) => (sort === 'file' ? (v.origin_file ?? '') : (v.heading ?? ''));
  return [...live].sort(sort === 'changed' ? (a, b) => b.seq - a.seq || b.id - a.id : (a, b) => compareBinary(key(a), key(b)) || a.id - b.id);
}

const byCount = (a: FacetCount, b: FacetCount) => b.count - a.count
  || (a.value === b.value ? 0 : a.value === null ? -1 : b.value === null ? 1 : compareBinary(a.value, b.value));

function facetsByRule(live: Version[]): Record<string, FacetCount[]> {
  const counts: Record<string, Map<string | null, number>> = {
    memory_type: new Map(), namespace: new Map(), status: new Map(), file: new Map(), tier: new Map(),
  };
  const add = (facet: string, value: string | null) => counts[facet]!.set(value, (counts[facet]!.get(value) ?? 0) + 1);
  for (const v of live) {
    add('memory_type', v.memory_type);
    add('namespace', v.namespace);
    add('status', v.status);
    add('file', v.origin_file);
    for (const tier of tiersOf(v.tags)) add('tier', tier);
  }
  return Object.fromEntries(Object.entries(counts).map(([facet, m]) => [facet, [...m].map(([value, count]) => ({ value, count })).sort(byCount)]));
}

describe('the records at an earlier sequence', () => {
  const { ledger, cleanup } = tempLedger();
  let latest = 0;
  let versions: Version[] = [];

  beforeAll(async () => {
    const gen = new HistoryGenerator(ledger, AGENT, 41);
    gen.register();
    for (let i = 0; i < 12; i++) gen.addRecord();
    await gen.sync(0);
    const edit = (i: number, change: (r: MemoryRecord) => MemoryRecord) => {
      gen.records = gen.records.map((r, j) => (j === i % gen.records.length ? change(r) : r));
    };
    for (let turn = 1; turn <= 36; turn++) {
      gen.randomMutations();
      if (turn % 3 === 0) edit(turn, (r) => ({ ...r, status: r.status === 'active' ? 'archived' : 'active' }));
      if (turn % 4 === 0) edit(turn + 1, (r) => ({ ...r, tags: ['tier:hot', 'tier:hot', 'tier:cold', 'pinned'] }));
      if (turn % 5 === 0) edit(turn + 2, (r) => ({ ...r, namespace: 'curated', memory_type: 'procedural' }));
      if (turn === 9) edit(0, (r) => ({ ...r, source: { runtime: 'openclaw', origin: 'workspace' } }));
      if (turn === 6) edit(turn + 3, (r) => ({ ...r, content: `${r.content}\nAsk MÜLLER about Ångström units.` }));
      const done = await gen.sync(turn, { rollover: turn % 11 === 0 });
      if (done) latest = done.seq;
    }
    versions = ledger.db.sqlite.prepare(`SELECT id, record_id, seq, entry_kind, op, memory_type, namespace, status, origin_file, heading,
      tags, moved_from, content FROM record_versions WHERE agent_id = ?`).all(AGENT) as Version[];
  });
  afterAll(() => cleanup());

  it('pages, totals and facets are the rule\'s at every sequence, in every order and under every filter', () => {
    expect(latest).toBeGreaterThan(25);
    expect(versions.some((v) => v.moved_from !== null)).toBe(true);
    expect(versions.some((v) => v.op === 'delete')).toBe(true);
    expect(versions.some((v) => v.content.includes('MÜLLER'))).toBe(true);
    const files = [...new Set(versions.map((v) => v.origin_file).filter((f): f is string => f !== null))];
    const filters: RecordFilters[] = [
      {}, { status: 'archived' }, { tier: 'hot' }, { tag: 'pinned' }, { namespace: 'curated', memory_type: 'procedural' },
      // Text typed as it is stored is found whatever its letters; case is ignored for ASCII letters only.
      { q: 'REDIS' }, { q: 'MÜLLER' }, { q: 'Ask MÜller' }, { q: 'ångström' }, { q: 'ÅNGSTRÖM' }, { q: 'müller' }, { file: files[0]! }, { file: files[1]!, status: 'active' }, { memory_type: 'nope' },
    ];
    let pages = 0;
    let seenNoFile = false;
    for (let at = 0; at <= latest; at++) {
      const live = liveByRule(versions, at);
      seenNoFile ||= live.some((v) => v.origin_file === null);
      for (const filter of filters) {
        const kept = live.filter((v) => keeps(v, filter));
        for (const sort of RECORD_SORTS) {
          const want = ordered(kept, sort).map((v) => [v.record_id, v.seq]);
          const got: [string, number][] = [];
          let cursor: string | undefined;
          for (;;) {
            const page = getRecordsAt({ db: ledger.db, agentId: AGENT, at, sort, limit: PAGE, ...filter, ...(cursor ? { cursor } : {}) })!;
            if (cursor === undefined) {
              const where = `at ${at}, ${JSON.stringify(filter)}, by ${sort}`;
              expect(page.total, where).toBe(kept.length);
              expect(page.facets, where).toEqual(facetsByRule(live));
            }
            got.push(...page.items.map((i): [string, number] => [i.record_id, i.seq]));
            pages++;
            if (!page.next_cursor) break;
            cursor = page.next_cursor;
          }
          expect(got, `at ${at}, ${JSON.stringify(filter)}, by ${sort}`).toEqual(want);
        }
      }
    }
    expect(seenNoFile).toBe(true);
    expect(pages).toBeGreaterThan(1500);
  });
});
