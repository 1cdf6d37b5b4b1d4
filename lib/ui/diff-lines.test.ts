import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FoldedDiff } from '@/components/compare/FoldedDiff';
import { wordDiff } from './diff';
import { diffLines, foldRows } from './diff-lines';

const text = (n: number, change?: number) => Array.from({ length: n }, (_, i) => (i === change ? `line ${i} edited` : `line ${i}`)).join('\n');

describe('diffLines / foldRows', () => {
  it('cuts a word diff into lines and marks the changed ones', () => {
    const lines = diffLines(wordDiff('a\nb 10.20.0.5\nc', 'a\nb 10.20.0.9\nc'));
    expect(lines.map((l) => l.changed)).toEqual([false, true, false]);
    expect(lines[1]!.segments).toEqual([{ op: 'equal', text: 'b ' }, { op: 'delete', text: '10.20.0.5' }, { op: 'insert', text: '10.20.0.9' }]);
  });

  it('a line added or removed whole is changed', () => {
    expect(diffLines(wordDiff('a\nc', 'a\nb\nc')).map((l) => l.changed)).toEqual([false, true, false]);
  });

  it('folds unchanged lines beyond three around a change, and reveals 40 more per step', () => {
    const lines = diffLines(wordDiff(text(200), text(200, 100)));
    const rows = foldRows(lines);
    expect(rows).toEqual([
      { kind: 'fold', start: 0, count: 97 },
      ...[97, 98, 99, 100, 101, 102, 103].map((index) => ({ kind: 'line', index })),
      { kind: 'fold', start: 104, count: 96 },
    ]);
    const more = foldRows(lines, new Map([[0, 40]]));
    expect(more[40]).toEqual({ kind: 'fold', start: 0, count: 57 });
    expect(more.slice(0, 40).map((r) => (r.kind === 'line' ? r.index : -1))).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(foldRows(lines, new Map([[0, 97], [104, 200]])).every((r) => r.kind === 'line')).toBe(true);
  });

  it('folds nothing when everything changed (a memory created)', () => {
    expect(foldRows(diffLines(wordDiff('', text(50)))).filter((r) => r.kind === 'fold')).toEqual([]);
  });
});

describe('FoldedDiff', () => {
  it('draws the changed line with three lines around it and a "Show 40 more lines" button per fold', () => {
    const html = renderToStaticMarkup(createElement(FoldedDiff, { before: text(200), after: text(200, 100) }));
    expect(html.match(/data-testid="diff-line"/g)).toHaveLength(7);
    expect(html.match(/Show 40 more lines/g)).toHaveLength(2);
    expect(html).toContain('(97 unchanged)');
    expect(html).toContain('<ins data-testid="diff-insert"');
  });
});
