'use client';

import { useAgent } from '@/lib/ui/hooks/use-agents';

/**
 * Under the agent's header on every agent page, when its history stops short of its ledger (the
 * agent's `index_notice`: an entry stored that could not be folded into the history index): what the
 * pages show ends at sequence N, why, and what the operator runs. Nothing otherwise.
 */
export function IndexNoticeBanner({ agentId }: { agentId: string }) {
  const { agent } = useAgent(agentId);
  const notice = agent?.index_notice;
  if (!notice) return null;
  const through = notice.indexed_through === null ? 'before its first sequence' : `at sequence ${notice.indexed_through}`;
  return (
    <div role="status" data-testid="index-notice" data-pending-from={notice.pending_from}
      className="mb-4 rounded-md border border-line bg-amber-50 px-4 py-3 text-[13px] text-amber-800 wrap-anywhere">
      <p className="font-medium">{`This agent's history stops ${through}`}</p>
      <p className="mt-0.5 text-[12px]">{notice.message}</p>
    </div>
  );
}
