/**
 * The Memories list's facets and total at an agent's latest sequence, read from the live-facet
 * counters the indexer keeps (`record_facets`, lib/history/live-facets.ts) instead of counted over
 * every live record — on both backends, which hand over their rows. Ordered as the counting query
 * ordered them: by count (highest first), then value in byte order, a null value (records without
 * an origin file) first among equal counts.
 */
import { compareBinary } from '../compare-binary';
import type { StoredFacet } from '../live-facets';
import type { FacetCount, FacetName, RecordFilters, RecordsAtResult } from './records';

export interface StoredFacetRow { facet: StoredFacet; value: string; count: number }

const byCount = (a: FacetCount, b: FacetCount) => b.count - a.count
  || (a.value === b.value ? 0 : a.value === null ? -1 : b.value === null ? 1 : compareBinary(a.value, b.value));

/** The facets of the records live at the latest sequence, from the agent's counters. */
export function facetsFromCounters(rows: readonly StoredFacetRow[]): NonNullable<RecordsAtResult['facets']> {
  const facets: NonNullable<RecordsAtResult['facets']> = { memory_type: [], namespace: [], status: [], file: [], tier: [] };
  let live = 0;
  let withFile = 0;
  for (const row of rows) {
    if (row.facet === 'live') live += row.count;
    else facets[row.facet as FacetName].push({ value: row.value, count: row.count });
    if (row.facet === 'file') withFile += row.count;
  }
  if (live > withFile) facets.file.push({ value: null, count: live - withFile });
  for (const list of Object.values(facets)) list.sort(byCount);
  return facets;
}

/** The filters a counter answers alone, and the counter each reads. */
const COUNTED = {
  memory_type: 'memory_type', namespace: 'namespace', status: 'status', file: 'file', tier: 'tier',
} as const satisfies Partial<Record<keyof RecordFilters, StoredFacet>>;
/** The filters no counter answers: a total with one of them is counted. */
const UNCOUNTED = ['tag', 'q'] as const satisfies readonly (keyof RecordFilters)[];
// A filter added to RecordFilters and to neither list fails to compile here (its total would be a counter's).
const EVERY_FILTER_SEEN: Record<Exclude<keyof RecordFilters, keyof typeof COUNTED | (typeof UNCOUNTED)[number]>, never> = {};
void EVERY_FILTER_SEEN;

/**
 * How many live records match `filters`, when the counters say it: no filter (every live record)
 * or exactly one facet filter (its value's counter; none means 0). Undefined otherwise (text, tag
 * or several filters): the caller counts the matches.
 */
export function totalFromCounters(filters: RecordFilters, rows: readonly StoredFacetRow[]): number | undefined {
  const active = (Object.keys(COUNTED) as (keyof RecordFilters)[]).concat(UNCOUNTED).filter((k) => filters[k] !== undefined);
  if (active.length === 0) return rows.find((r) => r.facet === 'live')?.count ?? 0;
  const only = active.length === 1 ? active[0]! : undefined;
  const facet = only !== undefined && only in COUNTED ? COUNTED[only as keyof typeof COUNTED] : undefined;
  if (facet === undefined) return undefined;
  return rows.find((r) => r.facet === facet && r.value === filters[active[0]!])?.count ?? 0;
}
