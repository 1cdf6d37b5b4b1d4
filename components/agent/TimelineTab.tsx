'use client';

import { useAgent } from '@/lib/ui/hooks/use-agents';
import { Panel } from '../ui/Panel';
import { LoadingRows } from '../ui/States';
import { ActivityChart, ActivityLegend } from './ActivityChart';
import { SequenceList } from './SequenceList';

export function TimelineTab({ agentId }: { agentId: string }) {
  const { agent } = useAgent(agentId);
  return (
    <div className="space-y-4" data-testid="timeline-tab">
      <Panel title="Activity, last 28 days" actions={<ActivityLegend />}>
        {agent ? <ActivityChart activity={agent.activity} /> : <LoadingRows rows={3} />}
      </Panel>
      <Panel title="Sequences" flush>
        <SequenceList agentId={agentId} />
      </Panel>
    </div>
  );
}
