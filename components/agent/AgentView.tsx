'use client';

import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { ChangesPanel } from '../changes/ChangesPanel';
import { AGENT_TABPANEL_ID, AgentTabs } from './AgentTabs';
import { MemoriesTab } from './MemoriesTab';
import { currentTab } from './tab-params';
import { TimelineTab } from './TimelineTab';

/**
 * The agent page below its header: the tabs and the open tab's view. The server's render already
 * holds the tab's first page (app/agents/[id]/tab-prefetch.ts); `data-hydrated` tells a test (or a
 * script) when the controls act, which the list being drawn no longer does.
 */
export function AgentView({ agentId }: { agentId: string }) {
  const url = useUrlState();
  const tab = currentTab(url.get('tab'));
  const hydrated = useHydrated();
  return (
    <div data-testid="agent-page" data-hydrated={hydrated ? '' : undefined}>
      <AgentTabs active={tab} />
      <div role="tabpanel" id={AGENT_TABPANEL_ID} aria-labelledby={`tab-${tab}`}>
        {tab === 'timeline' && <TimelineTab agentId={agentId} />}
        {tab === 'memories' && <MemoriesTab agentId={agentId} />}
        {tab === 'changes' && <ChangesPanel agentId={agentId} title="Changed memories" />}
      </div>
    </div>
  );
}
