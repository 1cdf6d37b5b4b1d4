import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { WorkspaceView } from '@/components/workspace/WorkspaceView';
import { LoadingRows } from '@/components/ui/States';
import { findAgent } from '@/lib/history/queries';
import { getLedger } from '@/lib/server/db';
import { pageTitle } from '@/lib/ui/page-title';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params, searchParams }: Props) {
  const { id } = await params;
  const { seq } = await searchParams;
  return { title: pageTitle(typeof seq === 'string' ? `Workspace at #${seq}` : 'Workspace', findAgent(getLedger().db, id)?.name) };
}

export default async function WorkspacePage({ params, searchParams }: Props) {
  const { id } = await params;
  const { seq } = await searchParams;
  // A sequence past the latest (or not a number) has no workspace to show or download: the designed 404.
  if (seq !== undefined) {
    const latest = findAgent(getLedger().db, id)?.latest_sequence ?? null;
    if (typeof seq !== 'string' || !/^\d+$/.test(seq) || latest === null || Number(seq) > latest) notFound();
  }
  return (
    <Suspense fallback={<LoadingRows rows={8} />}>
      <WorkspaceView agentId={id} />
    </Suspense>
  );
}
