'use client';

import type { FacetValue } from '@/lib/ui/api-types';
import type { RecordFilters } from '@/lib/ui/query-keys';
import { Select } from '../ui/Field';
import { visibleName } from '../ui/SafeName';
import { formText, UrlForm } from '../ui/UrlForm';

type FacetKey = 'memory_type' | 'namespace' | 'tier' | 'file' | 'status';

const LABELS: Record<FacetKey, string> = { memory_type: 'Type', namespace: 'Namespace', tier: 'Tier', file: 'File', status: 'Status' };

/**
 * Filter selects fed by the facet counts of the records live at the chosen sequence, a text and a tag field, and the sort.
 * A value is a workspace's text (a file name, a namespace): an option, which holds text only, shows its hidden
 * characters as `[U+XXXX]` (SafeName.tsx visibleName).
 */
export function RecordFilterBar({ facets, filters, onChange }: {
  facets: Partial<Record<FacetKey, FacetValue[]>>;
  filters: RecordFilters;
  onChange: (key: keyof RecordFilters, value: string | null) => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2" data-testid="record-filters">
      {(Object.keys(LABELS) as FacetKey[]).map((key) => {
        const values = facets[key] ?? [];
        const current = filters[key];
        return (
          <Select
            key={key}
            label={LABELS[key]}
            data-testid={`filter-${key}`}
            value={current ?? ''}
            onChange={(e) => onChange(key, e.target.value || null)}
          >
            <option value="">All</option>
            {current && !values.some((v) => v.value === current) && <option value={current}>{visibleName(current)}</option>}
            {values
              .filter((v): v is FacetValue & { value: string } => v.value !== null)
              .map((v) => (
                <option key={v.value} value={v.value}>
                  {visibleName(v.value)} ({v.count})
                </option>
              ))}
          </Select>
        );
      })}
      <UrlForm fields={['q']} className="inline-flex items-center gap-1.5 text-[12px] text-muted" onSubmit={(values) => onChange('q', formText(values, 'q'))}>
        <label htmlFor="filter-q">Text</label>
        <input
          id="filter-q"
          name="q"
          type="search"
          data-testid="filter-q"
          key={filters.q ?? ''}
          defaultValue={filters.q ?? ''}
          maxLength={500}
          placeholder="words in a memory"
          onBlur={(e) => {
            const q = e.currentTarget.value.trim() || null;
            if (q !== (filters.q ?? null)) onChange('q', q);
          }}
          className="h-7 w-40 rounded-md border border-line bg-white px-2 text-[12px] text-ink shadow-xs"
        />
      </UrlForm>
      <Select label="Sort" data-testid="records-sort" value={filters.sort ?? 'file'} onChange={(e) => onChange('sort', e.target.value === 'file' ? null : e.target.value)}>
        <option value="file">File</option>
        <option value="heading">Heading</option>
        <option value="changed">Last change</option>
      </Select>
      <UrlForm fields={['tag']} className="inline-flex items-center gap-1.5 text-[12px] text-muted" onSubmit={(values) => onChange('tag', formText(values, 'tag'))}>
        <label htmlFor="filter-tag">Tag</label>
        <input
          id="filter-tag"
          name="tag"
          data-testid="filter-tag"
          key={filters.tag ?? ''}
          defaultValue={filters.tag ?? ''}
          placeholder="e.g. curated"
          onBlur={(e) => {
            const tag = e.currentTarget.value.trim() || null;
            if (tag !== (filters.tag ?? null)) onChange('tag', tag);
          }}
          className="h-7 w-32 rounded-md border border-line bg-white px-2 font-mono text-[12px] text-ink shadow-xs"
        />
      </UrlForm>
    </div>
  );
}
