import { describe, expect, it } from 'vitest';
import { diffStats, lineDiff, tokenize, wordDiff } from './diff';

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

  it('replaces a changed token whole: 10.20.0.5 → 10.20.0.9 is one deletion and one insertion', () => {
    expect(wordDiff('gateway at 10.20.0.5 now', 'gateway at 10.20.0.9 now')).toEqual([
      { op: 'equal', text: 'gateway at ' },
      { op: 'delete', text: '10.20.0.5' },
      { op: 'insert', text: '10.20.0.9' },
      { op: 'equal', text: ' now' },
    ]);
    expect(wordDiff('10.20.0.5', '10.20.0.9')).toEqual([
      { op: 'delete', text: '10.20.0.5' },
      { op: 'insert', text: '10.20.0.9' },
    ]);
  });

  it('never splits a word, a date or a path', () => {
    const cases: [string, string, string, string][] = [
      ['keys in the vault.', 'keys in the vaults.', 'vault', 'vaults'],
      ['due 2026-11-09, then', 'due 2026-11-16, then', '2026-11-09', '2026-11-16'],
      ['see memory/notes.md', 'see memory/notes2.md', 'memory/notes.md', 'memory/notes2.md'],
    ];
    for (const [before, after, deleted, inserted] of cases) {
      const segments = wordDiff(before, after);
      expect(segments.filter((s) => s.op === 'delete').map((s) => s.text)).toEqual([deleted]);
      expect(segments.filter((s) => s.op === 'insert').map((s) => s.text)).toEqual([inserted]);
      expect(join(segments, 'delete')).toBe(before);
      expect(join(segments, 'insert')).toBe(after);
    }
  });

  it('tokenizes so that the tokens join back into the text', () => {
    expect(tokenize('IP 10.0.0.4, port 8080.')).toEqual(['IP', ' ', '10.0.0.4', ',', ' ', 'port', ' ', '8080', '.']);
    const text = "Don't — ¿qué? a/b c:d e@f.io\n\t x";
    expect(tokenize(text).join('')).toBe(text);
  });

  it('reads a reworded phrase as one phrase replaced, as diff-match-patch would in characters', () => {
    const segments = wordDiff('Maya prefers tabs over spaces and a dark theme.', 'Maya prefers spaces over tabs (two of them) and a dark theme.');
    expect(segments.filter((s) => s.op === 'delete').map((s) => s.text)).toEqual(['tabs over spaces']);
    expect(segments.filter((s) => s.op === 'insert').map((s) => s.text)).toEqual(['spaces over tabs (two of them)']);
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
