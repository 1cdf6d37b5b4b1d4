/**
 * The facet counts of an agent's live records at its latest sequence (`record_facets`), kept up to
 * date by the indexer: each ledger entry's record ops change them by `liveFacetDelta`, which every
 * index target applies in the entry's own transaction (the embedded database, the rebuild's
 * in-memory mirror, PostgreSQL), so the Memories list reads its filters and totals instead of
 * counting 50,000 live records per request. Migration 0013 fills the table with the same rules.
 */
import type { CurrentRecord, DerivedOp, RecordFields } from './index-rows';

/** `live` (value ''): how many records are live; the others count live records per value. */
export const STORED_FACETS = ['live', 'memory_type', 'namespace', 'status', 'file', 'tier'] as const;
export type StoredFacet = (typeof STORED_FACETS)[number];

/** One counter: a facet value and the change of its count (or, stored, the count). */
export interface FacetCount { facet: StoredFacet; value: string; count: number }

type FacetFields = Pick<RecordFields, 'memory_type' | 'namespace' | 'status' | 'origin_file' | 'tags'>;

/** The tiers of a record: each distinct `tier:X` tag gives X (the `tier` filter's match, the facet's unit). */
export function tiersOf(tagsJson: string): string[] {
  const tags = JSON.parse(tagsJson) as unknown;
  if (!Array.isArray(tags)) return [];
  const tiers = new Set<string>();
  for (const tag of tags) if (typeof tag === 'string' && tag.startsWith('tier:')) tiers.add(tag.slice('tier:'.length));
  return [...tiers];
}

/** A counter's key in the maps that sum deltas (facet and value apart by a character neither holds). */
const facetKey = (facet: StoredFacet, value: string) => `${facet}\u0000${value}`;

/** The counters one live record adds to (a record without an origin file has no `file` counter). */
export function facetValuesOf(f: FacetFields): [StoredFacet, string][] {
  const out: [StoredFacet, string][] = [['live', ''], ['memory_type', f.memory_type], ['namespace', f.namespace], ['status', f.status]];
  if (f.origin_file !== null) out.push(['file', f.origin_file]);
  for (const tier of tiersOf(f.tags)) out.push(['tier', tier]);
  return out;
}

/**
 * How one entry's ops change the counters: a record live before the entry leaves its old values
 * (an update's previous fields, a delete's — moved away or not — tombstone fields, which are its
 * last), a record live after it adds its new ones. Zero changes are left out; sorted, so every
 * target applies them in the same order.
 */
export function liveFacetDelta(ops: readonly DerivedOp[], fieldsOf: (row: CurrentRecord) => RecordFields): FacetCount[] {
  const delta = new Map<string, FacetCount>();
  const add = (fields: FacetFields, by: number) => {
    for (const [facet, value] of facetValuesOf(fields)) {
      const key = facetKey(facet, value);
      const entry = delta.get(key);
      if (entry) entry.count += by;
      else delta.set(key, { facet, value, count: by });
    }
  };
  for (const o of ops) {
    if (o.prev && o.prev.deleted_seq === null) add(o.op === 'delete' ? o.fields : fieldsOf(o.prev), -1);
    if (o.op !== 'delete') add(o.fields, 1);
  }
  return [...delta.values()].filter((c) => c.count !== 0)
    .sort((a, b) => (a.facet < b.facet ? -1 : a.facet > b.facet ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/** Counters after `delta`: what a target holding them in memory keeps (no zero counts). */
export function applyFacetDelta(counts: Map<string, FacetCount>, delta: readonly FacetCount[]): void {
  for (const c of delta) {
    const key = facetKey(c.facet, c.value);
    const next = (counts.get(key)?.count ?? 0) + c.count;
    if (next === 0) counts.delete(key);
    else counts.set(key, { facet: c.facet, value: c.value, count: next });
  }
}
