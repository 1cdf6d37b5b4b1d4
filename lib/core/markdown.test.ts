import { describe, expect, it } from 'vitest';
import { splitSections, wholeFileSection, type Section } from './markdown';
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
