'use client';

import clsx from 'clsx';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';

export type AgentTab = 'timeline' | 'memories' | 'changes';

const TABS: { id: AgentTab; label: string }[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'memories', label: 'Memories' },
  { id: 'changes', label: 'Changes' },
];

export function currentTab(value: string | null): AgentTab {
  return TABS.find((t) => t.id === value)?.id ?? 'timeline';
}

/** Tabs kept in `?tab=`; switching drops the other tabs' filters. */
export function AgentTabs({ active }: { active: AgentTab }) {
  const url = useUrlState();
  return (
    <div role="tablist" aria-label="Agent views" className="mb-4 flex gap-1 border-b border-line">
      {TABS.map((tab) => (
        <button
          key={tab.id}
          role="tab"
          type="button"
          aria-selected={tab.id === active}
          data-testid={`tab-${tab.id}`}
          onClick={() => {
            if (tab.id === active) return;
            const updates: Record<string, string | null> = Object.fromEntries([...url.params.keys()].map((k) => [k, null]));
            updates.tab = tab.id === 'timeline' ? null : tab.id;
            url.set(updates);
          }}
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
