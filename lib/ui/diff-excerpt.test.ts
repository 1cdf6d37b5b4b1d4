import { describe, expect, it } from 'vitest';
import { diffExcerpt } from './diff-excerpt';

const long = 'The platform team keeps its runbooks in the wiki and reviews them every quarter with on-call. ';

describe('diffExcerpt', () => {
  it('shows the changed words with a little context, not the start of the text', () => {
    const before = `${long.repeat(4)}The production gateway lives at 10.42.0.7 behind the HAProxy pair. ${long.repeat(4)}`;
    const after = before.replace('10.42.0.7', '10.42.0.9');
    const excerpt = diffExcerpt(before, after);
    expect(excerpt.filter((s) => s.op === 'delete').map((s) => s.text)).toEqual(['10.42.0.7']);
    expect(excerpt.filter((s) => s.op === 'insert').map((s) => s.text)).toEqual(['10.42.0.9']);
    const text = excerpt.map((s) => s.text).join('');
    expect(text.startsWith('…')).toBe(true);
    expect(text).toContain('gateway lives at');
    expect(text.length).toBeLessThan(140);
  });

  it('is empty when nothing changed', () => {
    expect(diffExcerpt('same', 'same')).toEqual([]);
  });
});

describe('diffExcerpt on multi-line memories', () => {
  it('reads as one line: the change is never pushed out by blank lines', () => {
    const excerpt = diffExcerpt('## Gateway\n\nThe production gateway lives at 10.42.0.7 behind the pair.', '## Gateway\n\nThe production gateway lives at 10.42.0.9 behind the pair.');
    const text = excerpt.map((s) => s.text).join('');
    expect(text).not.toMatch(/\n/);
    expect(text).toContain('lives at 10.42.0.7');
  });
});
