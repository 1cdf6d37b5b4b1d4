import { Suspense } from 'react';
import { WorkspaceView } from '@/components/workspace/WorkspaceView';
import { LoadingRows } from '@/components/ui/States';

export const metadata = { title: 'Workspace' };

export default async function WorkspacePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<LoadingRows rows={8} />}>
      <WorkspaceView agentId={id} />
    </Suspense>
  );
}
