import type { Lineage } from '@/lib/ui/api-types';
import { lineageKey, recordTitle } from '@/lib/ui/record-text';

/**
 * The memory's title from the page's first page of versions (newest first), as its heading reads
 * it: a key from the newest version that carries one.
 */
export function lineagePageTitle(page: Pick<Lineage, 'record' | 'versions'>): string {
  return recordTitle({ ...page.record, key: lineageKey({ versions: [...page.versions].reverse() }) });
}
