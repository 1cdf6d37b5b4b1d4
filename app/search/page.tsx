import { Suspense } from 'react';
import { SearchView } from '@/components/search/SearchView';
import { LoadingRows } from '@/components/ui/States';
import { searchTitle } from '@/lib/ui/page-title';
import { queryKeys } from '@/lib/ui/query-keys';
import { agentNames } from '@/lib/ui/agent-names';
import { requestScope, storage } from '../api/_lib/context';
import { Prefetched } from '../_lib/prefetch';

export const dynamic = 'force-dynamic';

export async function generateMetadata({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const { q } = await searchParams;
  return { title: searchTitle(typeof q === 'string' ? q : undefined) };
}

/** The search page, its agent filter's names prefetched (GET /api/agents?view=names): the search is its one request. */
export default async function SearchPage() {
  const tenantId = await requestScope();
  const s = await storage();
  const names = async () => agentNames(await s.listAgents({ tenantId }));
  return (
    <Prefetched entries={[[queryKeys.agentNames(), names]]}>
      <Suspense fallback={<LoadingRows rows={5} />}>
        <SearchView />
      </Suspense>
    </Prefetched>
  );
}
