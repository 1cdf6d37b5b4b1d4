/**
 * compareWorkspace where only the meta (file, heading, type, namespace, status, tags) tells an
 * update from no change: the SQLite verb builds the meta only for records whose two texts agree
 * or that a move links (compare-states.ts), so these are the cases that shortcut must not miss —
 * a tags-only edit, and a memory moved away and back to its place (a chain whose first and last
 * records differ) with and without a meta change on the way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '@/lib/ledger';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { compareWorkspace } from '../queries';

const AGENT = '3f2d1c0b-3333-4a2b-8c3d-00000000c0de';
const HOME = 'memory/project-alpha.md';
let ledger: Ledger;
let cleanup: () => void;
const ids = { tagged: '', same: [] as string[], retagged: [] as string[] };

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 5);
  gen.register();
  const [tagged, same, retagged] = [gen.addRecord(HOME), gen.addRecord(HOME), gen.addRecord(HOME)];
  gen.addRecord('MEMORY.md');
  await gen.sync(0);
  // #1: two memories leave for MEMORY.md (moves: same text, another file).
  ids.same = [same.id, gen.moveRecord(same.id, 'MEMORY.md')];
  ids.retagged = [retagged.id, gen.moveRecord(retagged.id, 'MEMORY.md')];
  await gen.sync(1);
  // #2: they come back as they were (heading and tags restored), one with a tag more; another memory gains a tag only.
  ids.same.push(gen.moveRecord(ids.same[1]!, HOME));
  ids.retagged.push(gen.moveRecord(ids.retagged[1]!, HOME));
  const restore = (id: string, like: typeof same, extra: string[]) =>
    gen.records = gen.records.map((r) => (r.id === id ? { ...r, tags: [...(like.tags ?? []), ...extra], raw_source_format: like.raw_source_format } : r));
  restore(ids.same[2]!, same, []);
  restore(ids.retagged[2]!, retagged, ['tier:hot']);
  restore(tagged.id, tagged, ['reviewed']);
  ids.tagged = tagged.id;
  await gen.sync(2);
});

afterAll(() => cleanup());

const compare = (from: number, to: number) => compareWorkspace({ db: ledger.db, agentId: AGENT, from, to })!;

describe('compareWorkspace when only the meta changed', () => {
  it('reports a tags-only edit, and a memory moved back with a tag more, as updates (in heading order); one moved back as it was, as nothing', () => {
    const m = compare(0, 2).memories;
    expect(m.updated.map((u) => [u.before.record_id, u.after.record_id, u.after.tags])).toEqual([
      [ids.tagged, ids.tagged, expect.arrayContaining(['reviewed'])],
      [ids.retagged[0], ids.retagged[2], expect.arrayContaining(['tier:hot'])],
    ]);
    expect([m.created, m.deleted, m.moved]).toEqual([[], [], []]);
  });

  it('shows each leg as a move', () => {
    expect(compare(0, 1).memories.moved.map((x) => [x.before.record_id, x.after.record_id]).sort())
      .toEqual([ids.same.slice(0, 2), ids.retagged.slice(0, 2)].sort());
    expect(compare(1, 2).memories.moved.map((x) => [x.before.record_id, x.after.record_id]).sort())
      .toEqual([ids.same.slice(1), ids.retagged.slice(1)].sort());
  });
});
