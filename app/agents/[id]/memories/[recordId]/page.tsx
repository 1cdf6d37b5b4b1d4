import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { LineageView } from '@/components/lineage/LineageView';
import { LoadingRows } from '@/components/ui/States';
import { queryKeys } from '@/lib/ui/query-keys';
import { Prefetched } from '../../../../_lib/prefetch';
import { pageTitle } from '@/lib/ui/page-title';
import { scopedAgent } from '../../../../_lib/scoped-agent';
import { firstLineagePage } from './first-page';
import { lineagePageTitle } from './title';

type Props = { params: Promise<{ id: string; recordId: string }> };

export async function generateMetadata({ params }: Props) {
  const { id, recordId } = await params;
  try {
    const agent = (await scopedAgent(id))?.name;
    if (agent === undefined) return { title: 'Memory' };
    const lineage = await firstLineagePage(id, decodeURIComponent(recordId));
    return { title: pageTitle(lineage ? lineagePageTitle(lineage) : 'Memory not found', agent) };
  } catch {
    return { title: 'Memory' };
  }
}

export default async function LineagePage({ params }: Props) {
  const { id, recordId: raw } = await params;
  const recordId = decodeURIComponent(raw);
  // The first page of the default order (newest first), as the view's infinite query holds it; the title read it already.
  const lineage = await firstLineagePage(id, recordId);
  if (!lineage) notFound();
  const firstPage = { pages: [lineage], pageParams: [{ cursor: null }] };
  return (
    <Prefetched entries={[[queryKeys.lineagePages(id, recordId, 'newest'), () => firstPage]]}>
      <Suspense fallback={<LoadingRows rows={8} />}>
        <LineageView agentId={id} recordId={recordId} />
      </Suspense>
    </Prefetched>
  );
}
