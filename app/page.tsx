import { Suspense } from 'react';
import { ChangesPanel } from '@/components/changes/ChangesPanel';
import { FleetStats } from '@/components/fleet/FleetStats';
import { FleetTable } from '@/components/fleet/FleetTable';
import { Panel } from '@/components/ui/Panel';
import { LoadingRows } from '@/components/ui/States';
import { FLEET_FEED_PAGE } from '@/lib/ui/page-window';

export const dynamic = 'force-dynamic';

/**
 * The fleet. Its first paint is the page itself; the agent list (GET /api/agents: every agent's stats,
 * a row and a sparkline each) and the change feed arrive after it, each its own request. Rendered into
 * the document, 101 agents made it a 650 KB answer costing about 90 ms of server CPU, finished only
 * after the browser had read all of it (bench/ui-scale: 320 ms p50 on an idle machine). The table's order and
 * filter are the address's `?sort=` and `?q=` (lib/ui/fleet.ts), applied in the browser to that one list. The
 * table is not in a Suspense boundary of its own (the page is dynamic, so its search params render on the server):
 * hydrated apart from FleetStats, the agents FleetStats had fetched meanwhile made it draw rows where the server
 * drew a loading state (React error 418).
 */
export default function FleetPage() {
  return (
    <div className="space-y-6" data-testid="fleet-page">
      <div>
        <h1 className="text-lg font-semibold tracking-tight">Fleet</h1>
        <p className="text-[13px] text-muted">Every synced agent, its latest sequence and how its memory moved in the last 7 days. Sort by any column, filter by name, id or runtime; the address keeps both.</p>
      </div>
      <FleetStats />
      <Panel title="Agents" flush>
        <FleetTable />
      </Panel>
      <Suspense fallback={<LoadingRows />}>
        <ChangesPanel title="Fleet changes" pageSize={FLEET_FEED_PAGE} />
      </Suspense>
    </div>
  );
}
