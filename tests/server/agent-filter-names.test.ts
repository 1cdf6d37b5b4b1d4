/**
 * A fleet cloned from one template has many agents of one name ("Atlas"): the agent filters of the
 * fleet's change feed and of the search page (server-side render of the real components) must let
 * each be told apart, as the fleet table does with the id's first 8 characters under the name.
 */
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { PathnameContext, SearchParamsContext } from 'next/dist/shared/lib/hooks-client-context.shared-runtime';
import { AgentFilter } from '@/components/changes/ChangesPanel';
import { ChangesFeed } from '@/components/changes/ChangesFeed';
import { SearchView } from '@/components/search/SearchView';
import { queryKeys } from '@/lib/ui/query-keys';

const AGENTS = [
  { id: 'e3208578-1535-5d51-8186-162b202fe2ad', name: 'Atlas', runtime: 'openclaw' },
  { id: '04bef914-2c23-564b-9c94-e5155843c93d', name: 'Atlas', runtime: 'openclaw' },
  { id: 'c01b3bcb-47be-53c3-830d-4395ebd31398', name: 'hm-02', runtime: 'hermes' },
  { id: '170686a3-7f52-512d-bc2b-1f7ce8dbbe92', name: 'ops\u202Etoba', runtime: 'openclaw' },
  { id: '270b156b-12da-5453-b542-be41bb1ed2bc', name: 'ops\u202Etoba', runtime: 'zeroclaw' },
];
const noop = () => {};

function render(element: ReactElement): string {
  const client = new QueryClient();
  client.setQueryData(queryKeys.agentNames(), AGENTS);
  const routed = createElement(AppRouterContext.Provider, {
    value: { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never,
  }, createElement(PathnameContext.Provider, { value: '/search' }, createElement(SearchParamsContext.Provider, { value: new URLSearchParams() }, element)));
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, routed));
}

/** Each `<option>`'s value and text, in order. */
function options(html: string): [string, string][] {
  return [...html.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1]!, m[2]!]);
}

const EXPECTED: [string, string][] = [
  ['', 'All agents'],
  ['04bef914-2c23-564b-9c94-e5155843c93d', 'Atlas · 04bef914'],
  ['e3208578-1535-5d51-8186-162b202fe2ad', 'Atlas · e3208578'],
  ['c01b3bcb-47be-53c3-830d-4395ebd31398', 'hm-02'],
  ['170686a3-7f52-512d-bc2b-1f7ce8dbbe92', 'ops[U+202E]toba · 170686a3'],
  ['270b156b-12da-5453-b542-be41bb1ed2bc', 'ops[U+202E]toba · 270b156b'],
];

describe('agent filters of a fleet whose agents share names', () => {
  it('the change feed\'s filter: a shared name gets the id\'s first 8 characters, by name then id; a unique one stays as it is', () => {
    const shown = options(render(createElement(AgentFilter, { value: '', onChange: noop })));
    expect(shown).toEqual(EXPECTED);
    expect(new Set(shown.map(([, text]) => text)).size).toBe(shown.length);
  });

  it('the search page\'s filter: the same options, in the same order', () => {
    const shown = options(render(createElement(SearchView)));
    expect(shown).toEqual(EXPECTED);
  });
});

describe('the search page\'s answer in such a fleet', () => {
  it('names the agent of the first appearance, of every other status and of every later appearance apart', () => {
    const [a, b, , c, d] = AGENTS.map((x) => x.id) as [string, string, string, string, string];
    const at = (agent_id: string, sequence: number) => ({
      agent_id, record_id: `0b5c7d1e-1111-4222-8333-${String(sequence).padStart(12, '0')}`, sequence, synced_at: '2026-12-07T12:00:00.000Z',
      origin_file: 'memory/semantic/projects.md', op: 'create', snippet: 'Nginx restarted', highlights: [[0, 5]],
    });
    const status = { present: true, last_seen_sequence: 14, gone_at_sequence: null, deleted: false };
    const client = new QueryClient();
    client.setQueryData(queryKeys.agentNames(), AGENTS);
    client.setQueryData(queryKeys.search('nginx', null, 0), {
      query: 'nginx', first: at(a, 0), appearances: [at(b, 1), at(c, 2)], total: 3, offset: 0, status,
      statuses: [{ ...status, agent_id: a }, { ...status, agent_id: b }, { ...status, agent_id: d }], suggestions: [],
    });
    const routed = createElement(AppRouterContext.Provider, {
      value: { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never,
    }, createElement(PathnameContext.Provider, { value: '/search' }, createElement(SearchParamsContext.Provider, { value: new URLSearchParams('q=nginx') }, createElement(SearchView))));
    const text = renderToStaticMarkup(createElement(QueryClientProvider, { client }, routed)).replace(/<option[^]*?<\/option>/g, '').replace(/<[^>]+>/g, '');
    expect(text).toContain('First appeared in Atlas · e3208578');
    expect(text).toContain('Also in Atlas · 04bef914');
    expect(text).toContain('toba · 270b156b');
    expect(text).toContain('Atlas · 04bef914Dec');
    expect(text).toContain('toba · 170686a3');
  });
});

describe('the fleet\'s change feed in such a fleet', () => {
  it('heads each agent\'s group with its name and, when shared, the id\'s first 8 characters', () => {
    const [a, b, h] = AGENTS.map((x) => x.id) as [string, string, string];
    const change = (seq: number) => ({
      seq, record_id: `0b5c7d1e-1111-4222-8333-${String(seq).padStart(12, '0')}`, op: 'create', synced_at: '2026-12-07T12:00:00.000Z',
      heading: 'note', key: null, origin_file: 'MEMORY.md', from_file: null, snippet: 'note', diff: null,
    });
    const groups = [a, b, h].map((agent_id, i) => ({ agent_id, agent_name: AGENTS[i]!.name, day: '2026-12-07', changes: [change(i)] }));
    const text = render(createElement(ChangesFeed, { groups: groups as never, showAgent: true })).replace(/<[^>]+>/g, '|');
    expect(text).toContain('|Atlas · e3208578|');
    expect(text).toContain('|Atlas · 04bef914|');
    expect(text).toContain('|hm-02|');
  });
});
