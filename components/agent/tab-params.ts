/**
 * What an agent page's URL asks each tab to show, read the same way by the tab components (in the
 * browser) and by the page's server render (app/agents/[id]/tab-prefetch.ts): one reading, so the
 * first page the server prefetches sits under the very query key the tab then asks for.
 * Plain module (no 'use client'): a server component calls these functions.
 */
import { intParam } from '@/lib/ui/url-params';
import type { RecordFilters } from '@/lib/ui/query-keys';

export type AgentTab = 'timeline' | 'memories' | 'changes';

export const AGENT_TABS: { id: AgentTab; label: string }[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'memories', label: 'Memories' },
  { id: 'changes', label: 'Changes' },
];

/** A query-string reader: `URLSearchParams.get` in the browser, the page's `searchParams` on the server. */
export type ParamReader = (key: string) => string | null;

export function currentTab(value: string | null): AgentTab {
  return AGENT_TABS.find((t) => t.id === value)?.id ?? 'timeline';
}

/** The Memories tab's URL parameters besides `at` (and `tab`). */
export const RECORD_FILTER_KEYS = ['memory_type', 'namespace', 'tier', 'file', 'tag', 'status', 'q', 'sort'] as const;

/** The Memories tab's sequence (null = latest) and filters, as its records query is keyed. */
export function recordsParams(get: ParamReader): { at: number | null; filters: RecordFilters } {
  const filters: RecordFilters = {};
  for (const key of RECORD_FILTER_KEYS) {
    const value = get(key);
    if (value) filters[key] = value;
  }
  return { at: intParam(get('at')), filters };
}
