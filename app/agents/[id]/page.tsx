import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AgentView } from '@/components/agent/AgentView';
import { LoadingRows } from '@/components/ui/States';
import { visibleName } from '@/components/ui/SafeName';
import { scopedAgent } from '../../_lib/scoped-agent';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  const name = (await scopedAgent(id))?.name;
  return { title: name ? visibleName(name) : 'Agent' };
}

export default async function AgentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<LoadingRows rows={8} />}>
      <AgentView agentId={id} />
    </Suspense>
  );
}
