import { Suspense } from 'react';
import { WorkspaceView } from '@/components/workspace/WorkspaceView';
import { LoadingRows } from '@/components/ui/States';
import { pageTitle } from '@/lib/ui/page-title';
import { scopedAgent } from '../../../_lib/scoped-agent';

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props) {
  const { id } = await params;
  return { title: pageTitle('Workspace', (await scopedAgent(id))?.name) };
}

// A sequence past the latest is answered by WorkspaceView (WorkspaceNotFound: no files, no downloads). Reading
// `searchParams` here to call notFound() made every sequence change a server round trip that left the tree loading.
export default async function WorkspacePage({ params }: Props) {
  const { id } = await params;
  return (
    <Suspense fallback={<LoadingRows rows={8} />}>
      <WorkspaceView agentId={id} />
    </Suspense>
  );
}
