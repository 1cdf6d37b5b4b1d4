'use client';

import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { ChangesPanel } from '../changes/ChangesPanel';
import { AGENT_TABPANEL_ID, AgentTabs, currentTab } from './AgentTabs';
import { MemoriesTab } from './MemoriesTab';
import { TimelineTab } from './TimelineTab';

export function AgentView({ agentId }: { agentId: string }) {
  const url = useUrlState();
  const tab = currentTab(url.get('tab'));
  return (
    <div data-testid="agent-page">
      <AgentTabs active={tab} />
      <div role="tabpanel" id={AGENT_TABPANEL_ID} aria-labelledby={`tab-${tab}`}>
        {tab === 'timeline' && <TimelineTab agentId={agentId} />}
        {tab === 'memories' && <MemoriesTab agentId={agentId} />}
        {tab === 'changes' && <ChangesPanel agentId={agentId} title="Changed memories" />}
      </div>
    </div>
  );
}
