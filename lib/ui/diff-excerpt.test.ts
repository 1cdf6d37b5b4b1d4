import { describe, expect, it } from 'vitest';
import { changedRegionDiff, diffExcerpt, excerptCache, excerptOf } from './diff-excerpt';
import { tokenize, wordDiff } from './diff';

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

describe('diffExcerpt diffs only the changed region', () => {
  // A deterministic generator of memory-like prose: words, dotted tokens, dates, line breaks.
  const WORDS = ['the', 'gateway', 'lives', 'at', '10.42.0.7', 'behind', 'HAProxy', 'pair', 'redis', 'rolled', 'back', '2026-11-09', 'memory/notes.md', "don't", 'on-call', 'vault', '—', '(two)', 'keys,', 'rotated.', '\n\n## Section\n', '  ', 'Ünïcode', '𝔘'];
  function prng(seed: number) {
    let x = seed;
    return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  }
  function prose(rand: () => number, words: number): string[] {
    return Array.from({ length: words }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
  }
  function edit(rand: () => number, tokens: string[]): string[] {
    const out = [...tokens];
    const edits = 1 + Math.floor(rand() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rand() * out.length);
      const kind = rand();
      if (kind < 0.4) out[at] = WORDS[Math.floor(rand() * WORDS.length)]!;
      else if (kind < 0.7) out.splice(at, 1 + Math.floor(rand() * 3));
      else out.splice(at, 0, ...prose(rand, 1 + Math.floor(rand() * 5)));
    }
    return out;
  }

  it('gives exactly the excerpt of the whole texts’ word diff (300 generated edits of 20–800 words, under the token cap)', () => {
    const rand = prng(20);
    for (let i = 0; i < 300; i++) {
      const words = 20 + Math.floor(rand() * (i % 3 === 0 ? 800 : 200));
      const base = prose(rand, words);
      const before = base.join(' ');
      const after = edit(rand, base).join(' ');
      expect(diffExcerpt(before, after), `case ${i}`).toEqual(excerptOf(wordDiff(before, after)));
    }
  });

  it('gives the same excerpt again from its cache, as copies', () => {
    const before = `${long.repeat(3)}The gateway lives at 10.42.0.7 now. ${long}`;
    const after = before.replace('10.42.0.7', '10.42.0.8');
    const first = diffExcerpt(before, after);
    const hits = excerptCache.hits;
    first[0]!.text = 'changed by the caller';
    const second = diffExcerpt(before, after);
    expect(excerptCache.hits).toBe(hits + 1);
    expect(second).toEqual(excerptOf(wordDiff(before, after)));
  });

  it('diffs a very long changed region over its first tokens only, and says so with "…"', () => {
    const rand = prng(3);
    const before = prose(rand, 5000).join(' ');
    const after = prose(rand, 5000).join(' ');
    const segments = changedRegionDiff(before, after);
    expect(segments[segments.length - 1]).toEqual({ op: 'equal', text: ' …' });
    const inserted = segments.filter((s) => s.op === 'insert').map((s) => s.text).join('');
    expect(inserted.length).toBeLessThanOrEqual(tokenize(after).slice(0, 2_000).join('').length);
    expect(inserted.length).toBeLessThan(after.length / 2);
    const excerpt = diffExcerpt(before, after);
    expect(excerpt.some((s) => s.op !== 'equal')).toBe(true);
    expect(excerpt.map((s) => s.text).join('').length).toBeLessThan(400);
  });
});
