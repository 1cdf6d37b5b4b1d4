import { Suspense } from 'react';
import { ChangesPanel } from '@/components/changes/ChangesPanel';
import { FleetStats } from '@/components/fleet/FleetStats';
import { FleetTable } from '@/components/fleet/FleetTable';
import { Panel } from '@/components/ui/Panel';
import { LoadingRows } from '@/components/ui/States';
import { requestScope, storage } from './api/_lib/context';
import { queryKeys } from '@/lib/ui/query-keys';
import { FLEET_FEED_PAGE } from '@/lib/ui/page-window';
import { Prefetched } from './_lib/prefetch';

export const dynamic = 'force-dynamic';

export default async function FleetPage() {
  const tenantId = await requestScope();
  const s = await storage();
  return (
    <Prefetched entries={[[queryKeys.agents(), () => s.listAgentsWithStats({ tenantId, now: new Date() })]]}>
      <div className="space-y-6" data-testid="fleet-page">
        <div>
          <h1 className="text-lg font-semibold tracking-tight">Fleet</h1>
          <p className="text-[13px] text-muted">Every synced agent, its latest sequence and how its memory moved in the last 7 days.</p>
        </div>
        <FleetStats />
        <Panel title="Agents" flush>
          <FleetTable />
        </Panel>
        <Suspense fallback={<LoadingRows />}>
          <ChangesPanel title="Fleet changes" pageSize={FLEET_FEED_PAGE} />
        </Suspense>
      </div>
    </Prefetched>
  );
}
