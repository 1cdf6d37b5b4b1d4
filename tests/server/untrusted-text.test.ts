/**
 * Untrusted names and memory text as the dashboard renders them (server-side render of the real
 * components): markdown images are links and never an <img>, hidden characters are visible badges,
 * long names are cut with the full name in a title.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MemoryMarkdown } from '@/components/memory/MemoryMarkdown';
import { SafeName, visibleName } from '@/components/ui/SafeName';

const md = (text: string) => renderToStaticMarkup(createElement(MemoryMarkdown, { text }));
const name = (n: string, max?: number) => renderToStaticMarkup(createElement(SafeName, { name: n, max }));

describe('memory markdown', () => {
  it('shows images as links to them, never as <img>', () => {
    const html = md('Look: ![pixel](https://tracker.example/p.gif) and ![](http://x.example/a.png)\n\n![ref][r]\n\n[r]: https://ref.example/i.png');
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('href="https://tracker.example/p.gif"');
    expect(html).toContain('image: pixel');
    expect(html).toContain('image: http://x.example/a.png');
    expect(html).toContain('href="https://ref.example/i.png"');
    expect(html).toMatch(/rel="noreferrer noopener nofollow"/);
  });

  it('keeps raw HTML as text', () => {
    const html = md('<img src="https://tracker.example/p.gif">');
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('&lt;img');
  });
});

describe('names', () => {
  it('shows a right-to-left override and invisible characters as visible badges', () => {
    const html = name('invoice\u202Egpj.md');
    expect(html).not.toContain('\u202E');
    expect(html).toContain('U+202E');
    expect(html).toContain('title="invoice[U+202E]gpj.md"');
    for (const ch of ['\u200B', '\u2066', '\uFEFF', '\u0007', '\u00AD', '\u061C']) expect(name(`a${ch}b`), JSON.stringify(ch)).not.toContain(ch);
    expect(visibleName('x\u200Dy')).toBe('x[U+200D]y');
  });

  it('leaves ordinary names alone, including non-Latin scripts', () => {
    expect(name('Atlas ops')).toBe('<span data-safe-name="" style="unicode-bidi:isolate">Atlas ops</span>');
    expect(name('مساعد')).toContain('مساعد');
  });

  it('cuts a very long name, the full name in a title', () => {
    const long = 'n'.repeat(300);
    const html = name(long, 80);
    expect(html).toContain(`title="${long}"`);
    const shown = html.replace(/title="[^"]*"/, '');
    expect(shown).toContain(`${'n'.repeat(79)}…`);
    expect(shown).not.toContain('n'.repeat(80));
  });
});
