/**
 * The change feed's URL parameters (`since`, `op`, `agent`), read the same way by ChangesPanel (in the
 * browser) and by a page's server render that prefetches the feed's first page (app/agents/[id]/tab-prefetch.ts),
 * so both key the query alike. Plain module (no 'use client'): a server component calls these functions.
 */
import type { ChangeFilters } from '@/lib/ui/query-keys';
import type { ParamReader } from '../agent/tab-params';

export type ChangeOp = 'create' | 'update' | 'delete' | 'move';
export type SinceMode = 'this-week' | '7d' | 'date';

/** The change feed's time window from `?since=`: a mode, and the day for `date`. */
export function sinceParam(raw: string | null): { mode: SinceMode; date: string } {
  if (raw === '7d') return { mode: '7d', date: '' };
  if (raw && /^\d{4}-\d{2}-\d{2}/.test(raw)) return { mode: 'date', date: raw.slice(0, 10) };
  return { mode: 'this-week', date: '' };
}

/** The op filter from `?op=` (`all` when absent or unknown). */
export function opParam(raw: string | null): ChangeOp | 'all' {
  return (['create', 'update', 'delete', 'move'] as const).find((o) => o === raw) ?? 'all';
}

/** The change feed's filters, as its query is keyed: one agent's (`agentId`) or the fleet's with `?agent=`. */
export function changeFilters(get: ParamReader, agentId?: string): ChangeFilters {
  const { mode, date } = sinceParam(get('since'));
  const op = opParam(get('op'));
  return {
    since: mode === 'date' ? `${date}T00:00:00Z` : mode,
    agent: agentId ?? (get('agent') || undefined),
    op: op === 'all' ? undefined : op,
  };
}
