import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { WorkspaceView } from '@/components/workspace/WorkspaceView';
import { LoadingRows } from '@/components/ui/States';
import { pageTitle } from '@/lib/ui/page-title';
import { isPastLatest } from '@/lib/ui/sequence-words';
import { scopedAgent } from '../../../_lib/scoped-agent';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ seq?: string | string[] }> };

export async function generateMetadata({ params }: Props) {
  const { id } = await params;
  return { title: pageTitle('Workspace', (await scopedAgent(id))?.name) };
}

/**
 * The workspace at `?seq=` (read by WorkspaceView in the browser). A sequence past the latest is this
 * page's 404 (not-found.tsx: no files, no downloads), decided here before anything streams.
 */
export default async function WorkspacePage({ params, searchParams }: Props) {
  const { id } = await params;
  const { seq } = await searchParams;
  const agent = await scopedAgent(id);
  if (agent && isPastLatest(seq, agent.latest_sequence)) notFound();
  return (
    <Suspense fallback={<LoadingRows rows={8} />}>
      <WorkspaceView agentId={id} />
    </Suspense>
  );
}
