'use client';

import clsx from 'clsx';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { rovingKeyDown } from '@/lib/ui/roving';
import { AGENT_TABS, type AgentTab } from './tab-params';

/** The id of the element holding the active tab's view (AgentView), for aria-controls. */
export const AGENT_TABPANEL_ID = 'agent-tabpanel';

/**
 * Tabs kept in `?tab=`; switching drops the other tabs' filters. The ARIA tabs pattern: only the
 * active tab is a tab stop, the arrow keys (and Home/End) move to and open the neighbouring tab.
 */
export function AgentTabs({ active }: { active: AgentTab }) {
  const url = useUrlState();
  const open = (id: AgentTab) => {
    if (id === active) return;
    const updates: Record<string, string | null> = Object.fromEntries([...url.params.keys()].map((k) => [k, null]));
    updates.tab = id === 'timeline' ? null : id;
    url.set(updates);
  };
  return (
    <div role="tablist" aria-label="Agent views" className="mb-4 flex gap-1 border-b border-line">
      {AGENT_TABS.map((tab, index) => (
        <button
          key={tab.id}
          id={`tab-${tab.id}`}
          role="tab"
          type="button"
          aria-selected={tab.id === active}
          aria-controls={AGENT_TABPANEL_ID}
          tabIndex={tab.id === active ? 0 : -1}
          data-testid={`tab-${tab.id}`}
          onClick={() => open(tab.id)}
          onKeyDown={rovingKeyDown('tab', index, AGENT_TABS.length, (i) => open(AGENT_TABS[i]!.id))}
          className={clsx(
            '-mb-px border-b-2 px-3 pb-2 pt-1 text-[13px] font-medium',
            tab.id === active ? 'border-orange-500 text-ink' : 'border-transparent text-muted hover:border-zinc-300 hover:text-ink',
          )}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
