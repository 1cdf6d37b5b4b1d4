/**
 * compareWorkspace over a hand-built history (lib/history/testing/compare-history.ts): the net
 * change between two sequences, moves shown as moves, and its range checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { CHANGES_1_TO_3, COMPARE_FACTS as F, compareHistory, compareNames } from '../testing/compare-history';
import { compareWorkspace } from '../queries';

let ledger: Ledger;
let agentId: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const history = await compareHistory();
  expect(history.latest).toBe(4);
  ledger = openLedger(history.dataDir);
  agentId = history.agentId;
  cleanup = history.cleanup;
}, 60_000);

afterAll(async () => {
  closeDatabase(ledger.db);
  await cleanup();
});

const compare = (from: number, to: number, limit?: number) => compareWorkspace({ db: ledger.db, agentId, from, to, limit })!;
const names = compareNames;

describe('compareWorkspace', () => {
  it('gives the net change from 1 to 3: a create, updates, a delete, two moves (one edited after), files added, changed and removed', () => {
    const c = compare(1, 3);
    expect(names(c)).toEqual(CHANGES_1_TO_3);
    expect(c.counts).toEqual({ created: 1, updated: 2, deleted: 1, moved: 2, added: 2, changed: 2, removed: 3 });
    expect(c.truncated).toBe(false);
  });

  it('carries the content at both ends: an update from its text at A to its text at B, a moved-then-edited memory as one entry', () => {
    const c = compare(1, 3);
    const edit = c.memories.updated.find((u) => u.after.heading === 'Edit')!;
    expect([edit.before.content, edit.after.content]).toEqual([expect.stringContaining(F.edit[1]), expect.stringContaining(F.edit[2])]);
    expect([edit.before.seq, edit.after.seq]).toEqual([1, 3]);
    const standup = c.memories.moved.find((m) => m.after.heading === 'Standup')!;
    expect(standup.before.content).toContain(F.standup[0]);
    expect(standup.after.content).toContain(F.standup[1]);
    expect(standup.before.record_id).not.toBe(standup.after.record_id);
    // Not also a delete and a create.
    expect(c.memories.created.concat(c.memories.deleted).map((m) => m.heading)).not.toContain('Standup');
  });

  it('a memory born and gone between the ends is no change; a memory edited after its move, compared from after the move, is an update', () => {
    expect(names(compare(1, 3)).created).not.toContain('Temp');
    expect(names(compare(1, 2)).created).toContain('Temp');
    const later = names(compare(2, 3));
    expect(later.deleted).toEqual(['Temp']);
    expect(later.updated).toEqual(['Edit', 'Standup', 'Gateway']); // by file: MEMORY.md, memory/archive/…, memory/semantic/…
    expect(later.moved).toEqual([]);
  });

  it('the whole history includes the last edit; equal ends compare to nothing', () => {
    expect(names(compare(0, 4)).updated).toEqual(['Edit', 'Keep', 'Gateway']);
    const same = compare(2, 2);
    expect(Object.values(same.counts).every((n) => n === 0)).toBe(true);
    expect(names(same)).toEqual({ created: [], updated: [], deleted: [], moved: [], added: [], changed: [], removed: [] });
  });

  it('cuts each kind at `limit` and says so, keeping the counts', () => {
    const c = compare(1, 3, 1);
    expect(c.memories.moved).toHaveLength(1);
    expect(c.files.removed).toHaveLength(1);
    expect(c.counts.removed).toBe(3);
    expect(c.truncated).toBe(true);
  });

  it('refuses a reversed range (400) and a sequence past the latest (404), in words', () => {
    expect(() => compare(3, 1)).toThrow(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/comes after/) }));
    expect(() => compare(1, 9)).toThrow(expect.objectContaining({ code: 'sequence_out_of_range', message: expect.stringMatching(/Sequence #9 does not exist.*0 to 4/) }));
    expect(compareWorkspace({ db: ledger.db, agentId: '00000000-0000-0000-0000-000000000000', from: 0, to: 1 })).toBeNull();
  });
});
