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
import { IdentityCard } from '@/components/lineage/IdentityCard';
import { MoveStep } from '@/components/lineage/MoveStep';
import { Provenance } from '@/components/lineage/Provenance';
import { VersionCard } from '@/components/lineage/VersionCard';
import { OpCard } from '@/components/sequence/OpCard';
import { RecordFilterBar } from '@/components/agent/RecordFilterBar';
import { AgentFilter } from '@/components/changes/ChangesPanel';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { queryKeys } from '@/lib/ui/query-keys';
import type { Lineage, LineageVersion, SequenceOp } from '@/lib/ui/api-types';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { PathnameContext, SearchParamsContext } from 'next/dist/shared/lib/hooks-client-context.shared-runtime';
import type { ReactElement } from 'react';

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

/** Rendered as a page renders it: under the app router (links ask it for prefetches), here one that does nothing. */
const noop = () => undefined;
const inRouter = (element: ReactElement) => createElement(AppRouterContext.Provider, {
  value: { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never,
}, element);

describe('file paths, keys and changed fields in the lineage and sequence views', () => {
  const RLO = 'memory/invoice\u202Egpj.md';
  const AGENT = '0b5c7d1e-1111-4222-8333-444455556666';
  const version = (over: Partial<LineageVersion>): LineageVersion => ({
    seq: 3, entry_kind: 'delta', op: 'move', synced_at: '2026-11-03T08:00:00.000Z', record_id: '0b5c7d1e-1111-4222-8333-000000000002',
    content: 'Not a picture.', content_sha256: '', memory_type: 'semantic', namespace: 'semantic', status: 'active',
    origin_file: RLO, heading: 'Invoice', tags: [], record: {}, from_file: 'memory/a.md', to_file: RLO, ...over,
  });
  const born = version({ seq: 0, op: 'create', origin_file: `${RLO}.old`, from_file: undefined, to_file: undefined, record: { raw_source_format: { key: 'key\u202Eyek' } } });
  const moved = version({});
  const lineage: Lineage = {
    record: {
      agent_id: AGENT, record_id: moved.record_id, memory_type: 'semantic', namespace: 'semantic', status: 'active', origin_file: RLO,
      heading: 'Invoice', tags: [], content: moved.content, born_seq: 0, born_at: born.synced_at, born_file: `${RLO}.old`,
      last_changed_seq: 3, last_changed_at: moved.synced_at, deleted_seq: null,
    },
    chain: [moved.record_id], versions: [born, moved], version_count: 2, moves: [moved],
    before: null, next_cursor: null, moved_from: [], moved_to: [],
  } as unknown as Lineage;
  const op = { op: 'move', record_id: moved.record_id, moved_from: null, content: 'Not a picture.', previous_content: null, memory_type: 'semantic', origin_file: RLO, from_file: 'memory/a.md', heading: 'Invoice' } as unknown as SequenceOp;

  it('show a right-to-left override in a path, a key or a changed file as a badge, never acting on the page', () => {
    const views = {
      MoveStep: createElement(MoveStep, { agentId: AGENT, version: moved }),
      Provenance: createElement(Provenance, { agentId: AGENT, lineage }),
      IdentityCard: createElement(IdentityCard, { agentId: AGENT, lineage }),
      OpCard: createElement(OpCard, { agentId: AGENT, seq: 3, op }),
      VersionCard: createElement(VersionCard, { agentId: AGENT, version: version({ op: 'update', from_file: undefined, to_file: undefined }), previous: born, mode: 'diff' }),
    };
    for (const [view, element] of Object.entries(views)) {
      const html = renderToStaticMarkup(inRouter(element));
      expect(html, view).toContain('U+202E');
      // Only inside attributes (titles, hrefs percent-encode it), never as text.
      expect(html.replace(/"[^"]*"/g, '""'), view).not.toContain('\u202E');
    }
  });
});

describe('the filter selects: options hold text only', () => {
  /** The markup with attribute values blanked: what is shown as text. */
  const shownText = (html: string) => html.replace(/"[^"]*"/g, '""');

  it('a file or namespace facet with a right-to-left override shows it as [U+202E], the option still selecting the value', () => {
    const bar = createElement(RecordFilterBar, {
      facets: { file: [{ value: 'memory/invoice\u202Egpj.md', count: 2 }], namespace: [{ value: 'ns\u200Bx', count: 1 }] },
      filters: { file: 'memory/gone\u202Ed.md' } as never,
      onChange: noop,
    });
    // Its text field is a form that carries the address's other parameters: rendered at an address.
    const atAddress = createElement(PathnameContext.Provider, { value: '/agents/a' }, createElement(SearchParamsContext.Provider, { value: new URLSearchParams() }, bar));
    const html = renderToStaticMarkup(inRouter(atAddress));
    expect(shownText(html)).not.toContain('\u202E');
    expect(shownText(html)).not.toContain('\u200B');
    expect(html).toContain('memory/invoice[U+202E]gpj.md (2)');
    expect(html).toContain('ns[U+200B]x (1)');
    // The one the address asks for, no longer among the facets.
    expect(html).toContain('>memory/gone[U+202E]d.md</option>');
    expect(html).toContain('value="memory/invoice\u202Egpj.md"');
  });

  it('the change feed\'s agent filter shows an agent name\'s hidden characters the same way', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.agentNames(), [{ id: '0b5c7d1e-1111-4222-8333-444455556666', name: 'ops\u202Etoba' }]);
    const html = renderToStaticMarkup(createElement(QueryClientProvider, { client }, createElement(AgentFilter, { value: '', onChange: noop })));
    expect(html).toContain('>ops[U+202E]toba</option>');
    expect(shownText(html)).not.toContain('\u202E');
  });
});
