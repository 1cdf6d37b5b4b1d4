import { describe, expect, it } from 'vitest';
import { diffStats, lineDiff, wordDiff } from './diff';

const join = (segments: { op: string; text: string }[], keep: string) =>
  segments.filter((s) => s.op === 'equal' || s.op === keep).map((s) => s.text).join('');

describe('wordDiff', () => {
  it('reconstructs both sides', () => {
    const before = 'The gateway runs on 10.0.0.4, port 8080.';
    const after = 'The gateway now runs on 10.0.0.7, port 8080!';
    const segments = wordDiff(before, after);
    expect(join(segments, 'delete')).toBe(before);
    expect(join(segments, 'insert')).toBe(after);
    expect(segments.some((s) => s.op === 'insert')).toBe(true);
    expect(segments.some((s) => s.op === 'delete')).toBe(true);
  });

  it('diffs whole words, not letters', () => {
    const segments = wordDiff('prefer tabs', 'prefer spaces');
    expect(segments).toEqual([
      { op: 'equal', text: 'prefer ' },
      { op: 'delete', text: 'tabs' },
      { op: 'insert', text: 'spaces' },
    ]);
    expect(diffStats(segments)).toEqual({ inserted: 1, deleted: 1 });
  });

  it('treats a birth as one insertion', () => {
    expect(wordDiff('', 'hello world')).toEqual([{ op: 'insert', text: 'hello world' }]);
  });
});

describe('lineDiff', () => {
  it('numbers lines on both sides', () => {
    const lines = lineDiff('a\nb\nc\n', 'a\nc\nd\n');
    expect(lines).toEqual([
      { op: 'equal', text: 'a', oldNo: 1, newNo: 1 },
      { op: 'delete', text: 'b', oldNo: 2, newNo: null },
      { op: 'equal', text: 'c', oldNo: 3, newNo: 2 },
      { op: 'insert', text: 'd', oldNo: null, newNo: 3 },
    ]);
  });
});
