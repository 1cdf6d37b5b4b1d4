import { describe, expect, it } from 'vitest';
import type { ChangeGroup, ChangeItem } from './api-types';
import { changeCount, truncationNotice } from './changes';

const item = (seq: number): ChangeItem => ({
  seq, op: 'create', record_id: `r${seq}`, heading: null, key: null, origin_file: null, memory_type: 'semantic', synced_at: '2026-01-01T00:00:00Z', snippet: '', from_record_id: null, from_file: null,
});
const group = (day: string, n: number): ChangeGroup => ({ agent_id: 'a', agent_name: 'A', day, changes: Array.from({ length: n }, (_, i) => item(i)) });

describe('changes notices', () => {
  it('counts changes across groups', () => {
    expect(changeCount({ groups: [group('2026-01-02', 600), group('2026-01-01', 400)] })).toBe(1000);
    expect(changeCount({ groups: [] })).toBe(0);
  });

  it('says a truncated feed shows only its first N changes, and how to narrow it', () => {
    const groups = [group('2026-01-02', 600), group('2026-01-01', 400)];
    expect(truncationNotice({ groups, truncated: true }, 'fleet')).toBe(
      'Showing the first 1000 changes (newest first); older ones in this window are not listed: narrow the window or filter by op or agent.',
    );
    expect(truncationNotice({ groups, truncated: true }, 'agent')).toMatch(/first 1000 changes.*narrow the window or filter by op\.$/);
  });

  it('says nothing about a whole feed', () => {
    expect(truncationNotice({ groups: [group('2026-01-01', 1000)], truncated: false }, 'fleet')).toBeNull();
  });
});
