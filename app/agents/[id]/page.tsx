import type { Metadata } from 'next';
import { AgentView } from '@/components/agent/AgentView';
import { visibleName } from '@/components/ui/SafeName';
import { requestScope } from '../../api/_lib/context';
import { Prefetched } from '../../_lib/prefetch';
import { scopedAgent } from '../../_lib/scoped-agent';
import { agentTabPrefetch } from './tab-prefetch';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Pick<Props, 'params'>): Promise<Metadata> {
  const { id } = await params;
  const name = (await scopedAgent(id))?.name;
  return { title: name ? visibleName(name) : 'Agent' };
}

/** The first value of a query parameter, as `URLSearchParams.get` (what the tabs read in the browser) gives it. */
const firstValue = (v: string | string[] | undefined): string | null => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

export default async function AgentPage({ params, searchParams }: Props) {
  const { id } = await params;
  const query = await searchParams;
  const entries = await agentTabPrefetch({ agentId: id, tenantId: await requestScope(), get: (key) => firstValue(query[key]) });
  return (
    <Prefetched entries={entries}>
      <AgentView agentId={id} />
    </Prefetched>
  );
}
