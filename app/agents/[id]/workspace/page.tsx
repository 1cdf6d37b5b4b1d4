import { Suspense } from 'react';
import { WorkspaceView } from '@/components/workspace/WorkspaceView';
import { LoadingRows } from '@/components/ui/States';
import { findAgent } from '@/lib/history/queries';
import { getLedger } from '@/lib/server/db';
import { pageTitle } from '@/lib/ui/page-title';

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props) {
  const { id } = await params;
  return { title: pageTitle('Workspace', findAgent(getLedger().db, id)?.name) };
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
