import { describe, expect, it } from 'vitest';
import type { ChangeGroup, ChangeItem } from './api-types';
import { changeCount, mergePages } from './changes';

const item = (seq: number): ChangeItem => ({
  seq, op: 'create', record_id: `r${seq}`, heading: null, key: null, origin_file: null, memory_type: 'semantic', synced_at: '2026-01-01T00:00:00Z', snippet: '', from_record_id: null, from_file: null,
});
const group = (day: string, n: number, agent = 'a', from = 0): ChangeGroup =>
  ({ agent_id: agent, agent_name: agent.toUpperCase(), day, changes: Array.from({ length: n }, (_, i) => item(from + i)) });

describe('change feed pages', () => {
  it('counts changes across groups', () => {
    expect(changeCount({ groups: [group('2026-01-02', 600), group('2026-01-01', 400)] })).toBe(1000);
    expect(changeCount({ groups: [] })).toBe(0);
  });

  it('joins a day and agent cut by a page boundary back into one group, in page order', () => {
    const merged = mergePages([
      { groups: [group('2026-01-02', 3, 'b'), group('2026-01-01', 2, 'a')] },
      { groups: [group('2026-01-01', 2, 'a', 2), group('2026-01-01', 1, 'c')] },
    ]);
    expect(merged.map((g) => [g.day, g.agent_id, g.changes.map((c) => c.seq)])).toEqual([
      ['2026-01-02', 'b', [0, 1, 2]],
      ['2026-01-01', 'a', [0, 1, 2, 3]],
      ['2026-01-01', 'c', [0]],
    ]);
    expect(changeCount({ groups: merged })).toBe(8);
  });
});
