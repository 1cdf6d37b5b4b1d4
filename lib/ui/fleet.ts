/**
 * The fleet table's order and filter (the fleet page, `components/fleet/FleetTable.tsx`): plain functions of the
 * agents GET /api/agents returned and the page's `?sort=` and `?q=`, so a link or a reload shows the same rows in the
 * same order.
 *
 * Sort: `?sort=<key>` ascending, `?sort=-<key>` descending; no `sort` is the default, the name ascending. Every order
 * ends with the same tie-break — the name ascending, then the id — whatever the direction, so equal values never
 * swap between renders. A missing value (no runtime, no sequence, never synced) is the smallest: first ascending,
 * last descending (sorting by last sync, oldest first, puts the agents that never synced at the top).
 *
 * Filter: the text, trimmed, case-insensitive (NFKC), as plain text (never a pattern, never markup), matched against
 * the agent's name as the page shows it (SafeName: a hidden character is a `U+XXXX` badge, so `invoice` finds
 * `invoice\u202Egpj` and so does `U+202E`; a text holding a hidden character itself finds only names with that one
 * there), the start of its id, and its runtime (`openclaw` or `OpenClaw`).
 */
import { echoInput } from '@/lib/core/echo';
import type { AgentSummary } from './api-types';
import { runtimeLabel } from './runtime-label';
import { visibleName } from './visible-name';

export const FLEET_SORT_KEYS = ['name', 'runtime', 'sequence', 'last_sync', 'live', 'changed'] as const;
export type FleetSortKey = (typeof FLEET_SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';
export interface FleetSort { key: FleetSortKey; dir: SortDir }

export const DEFAULT_FLEET_SORT: FleetSort = { key: 'name', dir: 'asc' };

/** The direction a column sorts in when first chosen: words A→Z, counts and times the most (the latest) first. */
export const FIRST_DIR: Record<FleetSortKey, SortDir> = { name: 'asc', runtime: 'asc', sequence: 'desc', last_sync: 'desc', live: 'desc', changed: 'desc' };

/** The longest filter text kept (the box's `maxLength`; a longer `?q=` is cut to it). */
export const FLEET_QUERY_MAX = 200;

const isKey = (value: string): value is FleetSortKey => (FLEET_SORT_KEYS as readonly string[]).includes(value);

/** `?sort=` as a sort, or null when it is not one (absent or empty: the default). */
export function parseFleetSort(param: string | null): FleetSort | null {
  if (param === null || param === '') return DEFAULT_FLEET_SORT;
  const desc = param.startsWith('-');
  const key = desc ? param.slice(1) : param;
  return isKey(key) ? { key, dir: desc ? 'desc' : 'asc' } : null;
}

/** A `?sort=` that is not a sort, in words (the table then shows the default order); null when it is fine. */
export function fleetSortProblem(param: string | null): string | null {
  if (parseFleetSort(param) !== null) return null;
  const keys = FLEET_SORT_KEYS.join(', ');
  return `The address asks for sort=“${echoInput(param ?? '')}”, which is not a column (${keys}, each with a leading “-” for descending): shown by name instead.`;
}

/** The `?sort=` value of a sort: null (no parameter) for the default. */
export function fleetSortParam(sort: FleetSort): string | null {
  if (sort.key === DEFAULT_FLEET_SORT.key && sort.dir === DEFAULT_FLEET_SORT.dir) return null;
  return sort.dir === 'desc' ? `-${sort.key}` : sort.key;
}

/** The sort a click on a column's header asks for: the other direction of the current column, else the column's first. */
export function nextFleetSort(current: FleetSort, key: FleetSortKey): FleetSort {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: FIRST_DIR[key] };
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Names in the order a reader expects (`hm-2` before `hm-10`, `émile` beside `emile`), then by code unit so none tie. */
export function compareNames(a: string, b: string): number {
  const c = collator.compare(a, b);
  if (c !== 0) return c;
  return a < b ? -1 : a > b ? 1 : 0;
}

const byTieBreak = (a: AgentSummary, b: AgentSummary) => compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Missing first: the smallest value. */
function compareMaybe<T>(a: T | null, b: T | null, compare: (x: T, y: T) => number): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return compare(a, b);
}

const num = (a: number, b: number) => a - b;
const time = (iso: string | null) => (iso === null ? null : Date.parse(iso));

function compareBy(key: FleetSortKey, a: AgentSummary, b: AgentSummary): number {
  switch (key) {
    case 'name':
      return compareNames(a.name, b.name);
    case 'runtime':
      return compareMaybe(a.runtime === null ? null : runtimeLabel(a.runtime), b.runtime === null ? null : runtimeLabel(b.runtime), compareNames);
    case 'sequence':
      return compareMaybe(a.latest_sequence, b.latest_sequence, num);
    case 'last_sync':
      return compareMaybe(time(a.last_sync_at), time(b.last_sync_at), num);
    case 'live':
      return a.live_records - b.live_records;
    case 'changed':
      return a.changed_records_7d - b.changed_records_7d || a.syncs_7d - b.syncs_7d;
  }
}

/** The agents in the sort's order (a new array), ties by name ascending, then id. */
export function sortAgents<T extends AgentSummary>(agents: readonly T[], sort: FleetSort): T[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...agents].sort((a, b) => sign * compareBy(sort.key, a, b) || byTieBreak(a, b));
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase();
/** A name as shown, without its hidden characters' badges: what a reader types. */
const badges = /\[U\+[0-9A-F]{4,6}\]/g;

/** The filter text as the table matches it: trimmed, inner runs of spaces one space, cut to FLEET_QUERY_MAX. */
export function fleetQuery(param: string | null): string {
  return [...(param ?? '').trim().replace(/\s+/g, ' ')].slice(0, FLEET_QUERY_MAX).join('');
}

/** Whether an agent matches a filter text (see the file's comment); every agent matches an empty one. */
export function agentMatches(agent: AgentSummary, query: string): boolean {
  const q = fleetQuery(query);
  if (q === '') return true;
  const shownQ = fold(visibleName(q));
  if (fold(visibleName(agent.name)).includes(shownQ)) return true;
  // A text without hidden characters also finds a name by its text alone; one with them (a pasted name) only that name.
  if (visibleName(q) === q && fold(visibleName(agent.name).replace(badges, '')).includes(fold(q))) return true;
  if (agent.id.toLowerCase().startsWith(q.toLowerCase())) return true;
  return agent.runtime !== null && (fold(agent.runtime).includes(shownQ) || fold(runtimeLabel(agent.runtime)).includes(shownQ));
}

/** The agents that match `query`, in the sort's order. */
export function fleetRows<T extends AgentSummary>(agents: readonly T[], sort: FleetSort, query: string): T[] {
  return sortAgents(agents.filter((a) => agentMatches(a, query)), sort);
}

/** "31 agents", or "12 of 31 agents" when a filter narrows them. */
export function fleetCount(shown: number, total: number): string {
  const noun = total === 1 ? 'agent' : 'agents';
  return shown === total ? `${total} ${noun}` : `${shown} of ${total} ${noun}`;
}
