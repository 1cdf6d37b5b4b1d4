/**
 * compareWorkspace against an oracle on generated histories (testing/generator.ts: creates, edits,
 * deletes, moves, binary files, a rollover snapshot): for every pair of sequences, what it reports
 * on each side equals the naive answer — every live record and file at A and at B (getRecordsAt,
 * getWorkspaceTree) diffed in JS — with a move counted on both sides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '@/lib/ledger';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { compareWorkspace, getRecordsAt, getWorkspaceTree, type RecordAtItem } from '../queries';

const AGENT = '3f2d1c0b-2222-4a2b-8c3d-00000000c0de';
let ledger: Ledger;
let cleanup: () => void;
let latest = 0;

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 20);
  gen.register();
  for (let i = 0; i < 5; i++) gen.addRecord();
  await gen.sync(0);
  let moved = '';
  let born = '';
  for (let turn = 1; turn <= 16; turn++) {
    // Random edits, but never to the record whose moves are planted below.
    const keep = gen.records.find((r) => r.id === moved);
    gen.randomMutations();
    if (keep && !gen.records.some((r) => r.id === moved)) gen.records.push(keep);
    // A move, the record moved edited a sync later, then moved on twice (a chain of three ids).
    if (turn === 5) moved = gen.moveRecord(gen.records[0]!.id, 'memory/archive/old.md');
    // Born and moved away between two sequences: only where it lives at B is new.
    if (turn === 7) born = gen.addRecord('memory/2026-01-01.md').id;
    if (turn === 8 && gen.records.some((r) => r.id === born)) gen.moveRecord(born, 'MEMORY.md');
    const exists = gen.records.some((r) => r.id === moved);
    if (turn === 6 && exists) gen.editRecord(moved);
    if (turn === 10 && exists) moved = gen.moveRecord(moved, 'memory/project-alpha.md');
    if (turn === 12 && gen.records.some((r) => r.id === moved)) moved = gen.moveRecord(moved, 'memory/2026-01-02.md');
    const truth = await gen.sync(turn, { rollover: turn === 9 });
    if (truth) latest = truth.seq;
  }
});

afterAll(() => cleanup());

const live = (at: number) => new Map(getRecordsAt({ db: ledger.db, agentId: AGENT, at, limit: 1000 })!.items.map((r) => [r.record_id, r]));
const files = (seq: number) => new Map(getWorkspaceTree({ db: ledger.db, agentId: AGENT, seq })!.files.map((f) => [f.path, f.sha256]));
const sorted = (ids: Iterable<string>) => [...ids].sort();
const fields = (r: RecordAtItem) => JSON.stringify([r.content, r.origin_file, r.heading, r.memory_type, r.namespace, r.status, r.tags]);

describe('compareWorkspace against the naive diff of every record', () => {
  it('agrees for every pair of sequences', () => {
    expect(latest).toBeGreaterThan(10);
    let moves = 0;
    for (let a = 0; a <= latest; a += 1) {
      const [atA, filesA] = [live(a), files(a)];
      for (let b = a; b <= latest; b += 1) {
        const [atB, filesB] = [live(b), files(b)];
        const c = compareWorkspace({ db: ledger.db, agentId: AGENT, from: a, to: b, limit: 2000 })!;
        const m = c.memories;
        moves += m.moved.length;
        const placed = m.updated.filter((u) => u.before.record_id !== u.after.record_id);
        const label = `${a}→${b}`;
        expect(sorted([...m.created, ...m.moved.map((x) => x.after), ...placed.map((u) => u.after)].map((r) => r.record_id)), label)
          .toEqual(sorted([...atB.keys()].filter((id) => !atA.has(id))));
        expect(sorted([...m.deleted, ...m.moved.map((x) => x.before), ...placed.map((u) => u.before)].map((r) => r.record_id)), label)
          .toEqual(sorted([...atA.keys()].filter((id) => !atB.has(id))));
        expect(sorted(m.updated.filter((u) => u.before.record_id === u.after.record_id).map((u) => u.after.record_id)), label)
          .toEqual(sorted([...atA.keys()].filter((id) => atB.has(id) && fields(atA.get(id)!) !== fields(atB.get(id)!))));
        for (const u of m.updated) expect(u.after.content, label).toBe(atB.get(u.after.record_id)!.content);
        expect(sorted(c.files.added.map((f) => f.path)), label).toEqual(sorted([...filesB.keys()].filter((p) => !filesA.has(p))));
        expect(sorted(c.files.removed.map((f) => f.path)), label).toEqual(sorted([...filesA.keys()].filter((p) => !filesB.has(p))));
        expect(sorted(c.files.changed.map((f) => f.path)), label)
          .toEqual(sorted([...filesA.keys()].filter((p) => filesB.has(p) && filesA.get(p) !== filesB.get(p))));
      }
    }
    expect(moves).toBeGreaterThan(0);
  });
});
