import { describe, expect, it } from 'vitest';
import { prng } from '@/lib/core/prng';
import { isRustWhitespace, rustLines } from '@/lib/core/rust-str';
import { fileNameDate, handlerFor, tierFor } from './handlers';
import { agentName } from './layers';
import { hashtags, importanceTags, lineTwoTags, secondLine, withoutLineTwo } from './tags';

describe('handler table', () => {
  it.each([
    ['MEMORY.md', 'curated', 'split'],
    ['memory/2026-01-15.md', 'daily', 'split'],
    ['memory/procedures/deploy.md', 'procedural', 'whole'],
    ['memory/curated/facts.md', 'curated', 'whole'],
    ['memory/active-context.md', 'active-context', 'whole'],
    ['memory/gating-policies.md', 'procedural', 'split'],
    ['memory/project-x.md', 'project', 'split'],
    ['memory/working-buffer.md', 'workspace', 'whole'],
    ['memory/semantic/infra.md', 'semantic', 'split'],
    ['memory/procedural/lessons.md', 'procedural', 'split'],
    ['memory/episodic/2026-04-05.md', 'episodic', 'split'],
    ['memory/archive/2026/03/x.md', 'episodic', 'split'],
  ])('%s → %s / %s', (rel, namespace, chunking) => {
    expect(handlerFor(rel)).toMatchObject({ namespace, chunking });
  });

  it('is case-sensitive and leaves other paths unmatched', () => {
    for (const rel of ['memory.md', 'Memory/a.md', 'memory/other/deep.md', 'memory/episodic/notes.md', 'notes.md']) {
      expect(handlerFor(rel)).toBeNull();
    }
  });

  it('assigns tiers, hot and buffer only in a v4.1 workspace', () => {
    expect(tierFor('memory/semantic/a.md', false)).toBe('warm');
    expect(tierFor('memory/episodic/2026-01-01.md', false)).toBe('cold');
    expect(tierFor('memory/archive/2026/01/a.md', false)).toBe('archive');
    expect(tierFor('MEMORY.md', false)).toBeNull();
    expect(tierFor('MEMORY.md', true)).toBe('hot');
    expect(tierFor('memory/working-buffer.md', true)).toBe('buffer');
    expect(tierFor('memory/2026-01-01.md', true)).toBeNull();
  });

  it('reads real calendar dates from file names only', () => {
    expect(fileNameDate('memory/archive/2026/02/2026-02-28.md')).toBe('2026-02-28');
    expect(fileNameDate('memory/2026-02-30.md')).toBeNull();
  });
});

describe('tags', () => {
  it('takes the first importance tag per line and the max score', () => {
    expect(importanceTags('a [decision|i=0.8] [x|i=0.99]\n[fact|i=0.9]\n[bad|i=x]')).toEqual({ names: ['decision', 'fact'], maxScore: 0.9 });
  });

  it('extracts hashtags, stripping leading # and trailing punctuation', () => {
    expect(hashtags('## Heading\nuse #rust, and ##ssh! # alone #é')).toEqual(['rust', 'ssh', 'é']);
  });

  it('splits hashtags on every Rust whitespace character, astral characters included in tokens', () => {
    expect(hashtags('## Head\n#one\u3000#two!!\u0085#😀 ##three, x#no #é\u00a0# #')).toEqual(['one', 'two', 'three', 'é']);
    expect(hashtags('#a\u2028#b\u205f#c\u180e#d')).toEqual(['a', 'b', 'c\u180e#d']);
  });

  it('finds no importance tags without an `|i=`', () => {
    expect(importanceTags('plain [x] text')).toEqual({ names: [], maxScore: null });
    expect(importanceTags('[a|i=0.4] and\n[b|i=0.9] [c|i=1]')).toEqual({ names: ['a', 'b'], maxScore: 0.9 });
  });

  it('parses the #tags: directive on line 2 in both styles', () => {
    expect(lineTwoTags('# T\n#tags: networking, ssh\n')).toEqual(['networking', 'ssh']);
    expect(lineTwoTags('# T\n#tags: #networking #ssh')).toEqual(['networking', 'ssh']);
    expect(lineTwoTags('#tags: a\nb')).toBeNull();
  });

  it('drops only line 2 from a chunk that covers it', () => {
    expect(withoutLineTwo('a\n#tags: x\nb', 1)).toBe('a\nb');
    expect(withoutLineTwo('#tags: x\nb', 2)).toBe('b');
    expect(withoutLineTwo('c\nd', 3)).toBe('c\nd');
  });
});

describe('agentName', () => {
  it('reads Name: lines in plain and bold styles, else the directory name', () => {
    expect(agentName('/ws/x', '# Identity\nRole: A\nName: Standard Agent')).toBe('Standard Agent');
    expect(agentName('/ws/x', '- **Name:** my_agent')).toBe('my_agent');
    expect(agentName('/ws/atlas', 'Nickname: N')).toBe('atlas');
    expect(agentName('/ws/atlas', undefined)).toBe('atlas');
  });
});

describe('hashtags on random text', () => {
  /** The tokens as first written: every maximal run of non-whitespace, kept when it starts with `#`. */
  const referenceTokens = (text: string): string[] => {
    const tokens: string[] = [];
    let i = 0;
    while (i < text.length) {
      while (i < text.length && isRustWhitespace(text.charCodeAt(i))) i++;
      const start = i;
      while (i < text.length && !isRustWhitespace(text.charCodeAt(i))) i++;
      if (i > start && text.charCodeAt(start) === 0x23) tokens.push(text.slice(start, i));
    }
    return tokens;
  };
  const referenceHashtags = (text: string) =>
    referenceTokens(text).filter((t) => [...t].length >= 2).map((t) => t.replace(/^#+/, '').replace(/[^\p{Alphabetic}\p{N}]+$/u, '')).filter((t) => t.length > 0);

  it('finds the same tags as a whole-text token scan', () => {
    const rand = prng(11);
    const alphabet = ['#', '#', 'a', 'b', '1', ' ', '\n', '\t', '\u00a0', '\u3000', '\u0085', '-', 'é', '😀', '.'];
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: Math.floor(rand() * 30) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      expect(hashtags(text)).toEqual(referenceHashtags(text));
    }
  });

  // Every Rust whitespace character, and characters that look like it and are not (U+FEFF, U+200B,
  // U+180E); letters, marks (Mn, Mc, Me) and digits (Nd, Nl, No) in and out of ASCII; ASCII
  // punctuation around tags; emoji alone and joined; `_` (Pc: \w, not alphanumeric); lone surrogates.
  const WHITESPACE = [...'\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000'];
  const OTHERS = ['\ufeff', '\u200b', '\u180e', 'a', 'Z', 'q', 'é', 'Ω', '中', '\u02b0', '\u0301', '\u0903', '\u20dd', '0', '7', '\u0663', '\uff11',
    '\u00b2', '\u2167', '\u00bd', '-', '.', '!', ',', ')', '_', '~', '\u00bf', '😀', '👩\u200d💻', '\u{1d400}', '\ud83d', '\ude00', '＃', '\u00a7'];
  for (const [name, hashWeight] of [['sparse', 1], ['dense', 6]] as const) {
    it(`gives exactly the tags of the token-and-regex reference on random Unicode texts (${name} #s)`, () => {
      const rand = prng(name === 'sparse' ? 2201 : 2202);
      const pick = (): string => {
        const r = rand() * (hashWeight + 4);
        if (r < hashWeight) return '#';
        if (r < hashWeight + 1.5) return WHITESPACE[Math.floor(rand() * WHITESPACE.length)]!;
        return OTHERS[Math.floor(rand() * OTHERS.length)]!;
      };
      for (let n = 0; n < 20_000; n++) {
        const text = Array.from({ length: Math.floor(rand() * 40) }, pick).join('');
        expect(hashtags(text), JSON.stringify(text)).toEqual(referenceHashtags(text));
      }
    });
  }

  it('gives the tags of headings, tags ending in marks and punctuation, and tokens of only #s', () => {
    expect(hashtags('## Heading\n#\n##\n### x')).toEqual([]);
    expect(hashtags('#cafe\u0301 #x\u0301!! #a- #1) #_ #é. #😀a #a😀 #\u2167, #z\u00bd')).toEqual(['cafe', 'x', 'a', '1', 'é', '😀a', 'a', '\u2167', 'z\u00bd']);
  });
});

describe('secondLine', () => {
  it('is line 2 of rustLines on random texts (\\r\\n, lone \\r, empty lines, no newline)', () => {
    const pieces = ['\n', '\r\n', '\r', 'a', '#tags: x', ' ', ''];
    for (let n = 0; n < 2000; n++) {
      const rand = prng(9000 + n);
      let text = '';
      for (let k = Math.floor(rand() * 8); k > 0; k--) text += pieces[Math.floor(rand() * pieces.length)];
      expect(secondLine(text), JSON.stringify(text)).toBe(rustLines(text)[1]);
    }
  });
});
