/**
 * The lineage page's first page of versions (newest first, as the view's infinite query holds it),
 * read once per request: `generateMetadata` takes the title from it and the page prefetches it
 * (React's `cache`, as `scopedAgent`), so a lineage document builds one lineage, not two.
 */
import { cache } from 'react';
import { storage } from '../../../../api/_lib/context';
import { LINEAGE_PAGE } from '@/lib/ui/page-window';

export const firstLineagePage = cache(async (agentId: string, recordId: string) =>
  (await storage()).getRecordLineage({ agentId, recordId, limit: LINEAGE_PAGE, order: 'newest' }));

