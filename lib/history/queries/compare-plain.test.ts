/**
 * compareWorkspace for records no move links, which the SQLite verb classifies from the range and
 * one index seek each (compare-states.ts › plainKinds), reading an earlier row only where the
 * answer hinges on it: a text edited and put back (its digest agrees: nothing, unless anything else
 * changed), a memory gone by `to` (its earlier file and heading place it in the list), a record
 * deleted before `from` and back in the range (its earlier version is a tombstone: created), one
 * born and gone in between (nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '@/lib/ledger';
import type { MemoryRecord } from '@/lib/core/record';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { compareWorkspace } from '../queries';

const AGENT = '3f2d1c0b-4444-4a2b-8c3d-00000000c0de';
let ledger: Ledger;
let cleanup: () => void;
const r: Record<'reverted' | 'edited' | 'goneLate' | 'goneEarly' | 'back' | 'brief', MemoryRecord> = {} as never;

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 7);
  gen.register();
  // Two memories that will be gone, in files whose order differs from their records' order.
  r.goneLate = gen.addRecord('memory/zeta.md');
  r.goneEarly = gen.addRecord('MEMORY.md');
  r.reverted = gen.addRecord('memory/project-alpha.md');
  r.edited = gen.addRecord('memory/project-alpha.md');
  r.back = gen.addRecord('memory/project-alpha.md');
  await gen.sync(0);
  // #1: one text edited (to be put back), another edited for good, one deleted (to come back), one born.
  gen.editRecord(r.reverted.id);
  gen.editRecord(r.edited.id);
  gen.deleteRecord(r.back.id);
  r.brief = gen.addRecord('memory/project-alpha.md');
  await gen.sync(1);
  // #2: the first text as it was, the deleted record back as it was, the two gone, the new one gone again.
  gen.records = gen.records.map((x) => (x.id === r.reverted.id ? { ...x, content: r.reverted.content } : x));
  gen.records.push(r.back);
  for (const gone of [r.goneLate, r.goneEarly, r.brief]) gen.deleteRecord(gone.id);
  await gen.sync(2);
});

afterAll(() => cleanup());

const compare = (from: number, to: number, limit?: number) => compareWorkspace({ db: ledger.db, agentId: AGENT, from, to, limit })!;

describe('compareWorkspace of records no move links', () => {
  it('counts a text put back as it was as no change, and keeps the edit that stayed', () => {
    const { memories: m, counts } = compare(0, 2);
    expect(m.updated.map((u) => u.after.record_id)).toEqual([r.edited.id]);
    expect(m.updated[0]!.before.content).toBe(r.edited.content);
    expect(m.created).toEqual([]);
    expect(counts).toMatchObject({ created: 0, updated: 1, deleted: 2, moved: 0 });
  });

  it('places the memories gone by `to` by their earlier file and heading, also when the page is cut', () => {
    expect(compare(0, 2).memories.deleted.map((d) => [d.origin_file, d.record_id])).toEqual([['MEMORY.md', r.goneEarly.id], ['memory/zeta.md', r.goneLate.id]]);
    const cut = compare(0, 2, 1);
    expect(cut.memories.deleted.map((d) => d.record_id)).toEqual([r.goneEarly.id]);
    expect([cut.counts.deleted, cut.truncated]).toEqual([2, true]);
  });

  it('reports a record whose earlier version is a tombstone as created, and one born and gone between the ends as nothing', () => {
    const m = compare(1, 2).memories;
    expect(m.created.map((c) => c.record_id)).toEqual([r.back.id]);
    expect(m.updated.map((u) => u.after.record_id)).toEqual([r.reverted.id]);
    expect(m.deleted.map((d) => d.record_id).sort()).toEqual([r.goneLate.id, r.goneEarly.id, r.brief.id].sort());
    expect(compare(0, 2).memories.deleted.map((d) => d.record_id)).not.toContain(r.brief.id);
  });
});

describe('compareWorkspace of many plain records, ranked by SQLite', () => {
  // Headings SQLite's byte order (UTF-8) and JavaScript's (UTF-16) put in different orders: U+FFFD
  // sorts before U+1F600 in UTF-8, after its surrogates in UTF-16. The page follows JavaScript's.
  const headings = ['Note A\u{1F600}', 'Note A\uFFFD', 'Note B', 'Note C', 'Note D', 'Note E', 'Note F'];
  let wide: { ledger: Ledger; cleanup: () => void };
  const ids = new Map<string, string>();
  const AGENT2 = '3f2d1c0b-5555-4a2b-8c3d-00000000c0de';
  const at = (record: MemoryRecord, heading: string): MemoryRecord => ({ ...record, raw_source_format: { ...record.raw_source_format, heading } });

  beforeAll(async () => {
    wide = tempLedger();
    const gen = new HistoryGenerator(wide.ledger, AGENT2, 11);
    gen.register();
    const old = headings.map((h) => at(gen.addRecord('memory/project-alpha.md'), `${h} (old)`));
    gen.records = old;
    await gen.sync(0);
    // #1: every old one edited; as many born, in reverse order of their headings.
    for (const r of old) gen.editRecord(r.id);
    for (const h of [...headings].reverse()) {
      const r = at(gen.addRecord('memory/project-alpha.md'), h);
      gen.records = [...gen.records.filter((x) => x.id !== r.id), r];
      ids.set(h, r.id);
    }
    await gen.sync(1);
  });

  afterAll(() => wide.cleanup());

  it('gives the first `limit` of each kind in JavaScript order and counts every one', () => {
    const jsOrder = [...headings].sort();
    expect(jsOrder.slice(0, 2)).toEqual(['Note A\u{1F600}', 'Note A\uFFFD']);
    for (const limit of [1, 2, 3, 7, 50]) {
      const c = compareWorkspace({ db: wide.ledger.db, agentId: AGENT2, from: 0, to: 1, limit })!;
      expect(c.memories.created.map((m) => m.heading), `limit ${limit}`).toEqual(jsOrder.slice(0, limit));
      expect(c.memories.updated.map((u) => u.after.heading), `limit ${limit}`).toEqual(jsOrder.slice(0, limit).map((h) => `${h} (old)`));
      expect([c.counts.created, c.counts.updated, c.truncated], `limit ${limit}`).toEqual([7, 7, limit < 7]);
    }
  });
});
