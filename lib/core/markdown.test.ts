import { describe, expect, it } from 'vitest';
import { sectionsAgain, splitSections, splitSectionsAt, wholeFileSection, type Section } from './markdown';
import { prng } from './prng';
import { rustLines, rustTrim } from './rust-str';

/** The chunker as first written, line strings and all: the oracle for the one that walks ranges. */
function referenceSplit(text: string): Section[] {
  const sections: Section[] = [];
  let current = { heading: null as string | null, lines: [] as string[], lineStart: 1 };
  let inFence = false;
  const blank = (line: string) => rustTrim(line) === '';
  const push = () => {
    const { heading, lines } = current;
    if (lines.length === 0) return;
    const keep = heading === null ? lines.some((l) => !blank(l) && !l.startsWith('#')) : lines.slice(1).some((l) => !blank(l));
    if (keep) sections.push({ heading, content: lines.join('\n'), lineStart: current.lineStart, lineEnd: current.lineStart + lines.length - 1 });
  };
  rustLines(text).forEach((line, index) => {
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence && line.startsWith('## ')) {
      push();
      current = { heading: rustTrim(line.slice(3)), lines: [], lineStart: index + 1 };
    }
    current.lines.push(line);
  });
  push();
  return sections;
}

/** A random markdown text: lines of headings, fences, blank and `#` lines and prose, with odd pieces inside. */
function randomMarkdown(rand: () => number, lines: number): string {
  const starts = ['## ', '## ', '## ', '```', '# ', '', ' ', '##', '### ', 'x ', '## \t'];
  const pieces = ['a', 'word', ' ', '#', '## ', '```', '\t', 'é', '\u00a0', '\r', '\r\n', '\n', 'b', 'c'];
  let text = '';
  for (let l = 0; l < lines; l++) {
    text += starts[Math.floor(rand() * starts.length)];
    for (let k = Math.floor(rand() * 4); k > 0; k--) text += pieces[Math.floor(rand() * pieces.length)];
    text += rand() < 0.1 ? '\r\n' : '\n';
  }
  return rand() < 0.2 ? text.slice(0, -1) : text;
}

/** `text` with one random edit: a span replaced, lines inserted, deleted, moved or repeated. */
function randomEdit(rand: () => number, text: string): string {
  const at = (n: number) => Math.floor(rand() * (n + 1));
  const lines = text.split('\n');
  const a = at(lines.length);
  const b = Math.min(lines.length, a + at(4));
  switch (Math.floor(rand() * 6)) {
    case 0: {
      const from = at(text.length);
      const to = Math.min(text.length, from + at(12));
      return text.slice(0, from) + randomMarkdown(rand, at(2)).slice(0, at(10)) + text.slice(to);
    }
    case 1:
      return [...lines.slice(0, a), ...randomMarkdown(rand, 1 + at(3)).split('\n'), ...lines.slice(a)].join('\n');
    case 2:
      return [...lines.slice(0, a), ...lines.slice(b)].join('\n');
    case 3: {
      const moved = lines.slice(a, b);
      const rest = [...lines.slice(0, a), ...lines.slice(b)];
      const to = at(rest.length);
      return [...rest.slice(0, to), ...moved, ...rest.slice(to)].join('\n');
    }
    case 4:
      return [...lines.slice(0, b), ...lines.slice(a, b), ...lines.slice(b)].join('\n');
    default: {
      // A line changed in place (a section's text edited, its lines kept).
      const k = Math.min(a, lines.length - 1);
      lines[k] = `${lines[k]}${['x', '```', ' ', '## y'][Math.floor(rand() * 4)]}`;
      return lines.join('\n');
    }
  }
}

describe('sectionsAgain', () => {
  it('gives splitSections of the earlier version over random texts and edits (fences, headings, CRLF, dropped sections)', () => {
    for (let n = 0; n < 6000; n++) {
      const rand = prng(9100 + n);
      const before = randomMarkdown(rand, Math.floor(rand() * 30));
      let now = before;
      for (let e = 1 + Math.floor(rand() * 3); e > 0; e--) now = randomEdit(rand, now);
      for (const [older, newer] of [[before, now], [now, before]] as const) {
        const { sections, starts } = splitSectionsAt(newer);
        expect(sections).toEqual(splitSections(newer));
        expect(sectionsAgain(older, newer, sections, starts), JSON.stringify([older, newer])).toEqual(splitSections(older));
      }
    }
  });

  it('takes over the sections of a large text edited in one place as the same objects, the rest walked again', () => {
    const body = (i: number, edited = false) => `## Section ${i}\nline one of ${i}${edited ? ' (edited)' : ''}\nline two\n\n`;
    const before = Array.from({ length: 100 }, (_, i) => body(i)).join('');
    const now = Array.from({ length: 100 }, (_, i) => body(i, i === 40)).join('');
    const { sections, starts } = splitSectionsAt(now);
    const again = sectionsAgain(before, now, sections, starts);
    expect(again).toEqual(splitSections(before));
    const same = again.filter((section, i) => section === sections[i]).length;
    expect(same).toBe(99);
  });
});

describe('splitSections', () => {
  it('chunks random texts exactly as the line-by-line reference (\\r\\n, lone \\r, fences, blank and # lines)', () => {
    const pieces = ['## ', '# ', '```', '\n', '\r\n', '\r', ' ', '\t', '\u00a0', '\u2028', 'a', 'word', '#', '##', '\r\r\n', 'é'];
    for (let n = 0; n < 3000; n++) {
      const rand = prng(500 + n);
      let text = '';
      for (let k = Math.floor(rand() * 40); k > 0; k--) text += pieces[Math.floor(rand() * pieces.length)];
      expect(splitSections(text), JSON.stringify(text)).toEqual(referenceSplit(text));
    }
  });

  it('splits on ## at column 0 with 1-based inclusive lines, heading line included', () => {
    const text = '## Morning standup\nDiscussed tests.\n\n## Afternoon sync\nWorked.\n\n## EOD summary\nPassing.';
    expect(splitSections(text)).toEqual([
      { heading: 'Morning standup', content: '## Morning standup\nDiscussed tests.\n', lineStart: 1, lineEnd: 3 },
      { heading: 'Afternoon sync', content: '## Afternoon sync\nWorked.\n', lineStart: 4, lineEnd: 6 },
      { heading: 'EOD summary', content: '## EOD summary\nPassing.', lineStart: 7, lineEnd: 8 },
    ]);
  });

  it('drops a `#`-only preamble but keeps the line numbering', () => {
    const text = '# Curated Memories\n\n## Fact 1\nImportant.\n\n## Fact 2\nAnother.';
    const sections = splitSections(text);
    expect(sections.map((s) => [s.heading, s.lineStart, s.lineEnd])).toEqual([
      ['Fact 1', 3, 5],
      ['Fact 2', 6, 7],
    ]);
  });

  it('keeps a preamble with prose after its title', () => {
    expect(splitSections('# Title\n\nIntro text.\n## A\nbody')).toEqual([
      { heading: null, content: '# Title\n\nIntro text.', lineStart: 1, lineEnd: 3 },
      { heading: 'A', content: '## A\nbody', lineStart: 4, lineEnd: 5 },
    ]);
  });

  it('drops headed sections whose body is blank', () => {
    expect(splitSections('## Empty\n\n   \n## Full\nx')).toEqual([
      { heading: 'Full', content: '## Full\nx', lineStart: 4, lineEnd: 5 },
    ]);
  });

  it('ignores ## inside a code fence', () => {
    const text = '## Code\n```md\n## not a heading\n```\n## Next\ny';
    expect(splitSections(text).map((s) => [s.heading, s.lineStart, s.lineEnd])).toEqual([
      ['Code', 1, 4],
      ['Next', 5, 6],
    ]);
  });

  it('requires column 0 and the space: indented, ### and ##x are not boundaries', () => {
    const text = '## A\n ## indented\n### sub\n##nospace\nbody';
    expect(splitSections(text)).toHaveLength(1);
    expect(splitSections(text)[0]!.lineEnd).toBe(5);
  });

  it('trims the heading text', () => {
    expect(splitSections('##   Padded  \t\nbody')[0]!.heading).toBe('Padded');
  });

  it('strips one \\r per line as Rust lines() does (CRLF)', () => {
    expect(splitSections('## A\r\nx\r\n\r\n## B\r\ny\r\n')).toEqual([
      { heading: 'A', content: '## A\nx\n', lineStart: 1, lineEnd: 3 },
      { heading: 'B', content: '## B\ny', lineStart: 4, lineEnd: 5 },
    ]);
  });

  it('keeps trailing blank lines in the last section', () => {
    expect(splitSections('## A\nx\n\n\n')[0]).toEqual({ heading: 'A', content: '## A\nx\n\n', lineStart: 1, lineEnd: 4 });
  });

  it('treats U+0085 as whitespace and U+FEFF as text, like Rust', () => {
    expect(splitSections('## A\n\u0085\n')).toEqual([]);
    expect(splitSections('## A\n\uFEFF')).toHaveLength(1);
    // a BOM before ## means the line does not start with "## "
    expect(splitSections('\uFEFF## A\nx')).toEqual([{ heading: null, content: '\uFEFF## A\nx', lineStart: 1, lineEnd: 2 }]);
  });

  it('returns nothing for empty input', () => {
    expect(splitSections('')).toEqual([]);
    expect(splitSections('\n\n')).toEqual([]);
  });
});

describe('wholeFileSection', () => {
  it('keeps the file verbatim with lines 1..count', () => {
    expect(wholeFileSection('We are working.\n')).toEqual({ heading: null, content: 'We are working.\n', lineStart: 1, lineEnd: 1 });
    expect(wholeFileSection('a\nb\nc')!.lineEnd).toBe(3);
  });

  it('yields none for an empty or blank file', () => {
    expect(wholeFileSection('')).toBeNull();
    expect(wholeFileSection(' \n\t\n')).toBeNull();
  });
});
