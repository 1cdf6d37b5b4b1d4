'use client';

import Link from '@/components/ui/Link';
import { usePathname } from 'next/navigation';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { agentPageCrumbs } from '@/lib/ui/breadcrumbs';
import { routes } from '@/lib/ui/routes';
import { LinkButton } from '../ui/Button';
import { RelativeTime } from '../ui/RelativeTime';
import { RuntimeBadge } from '../ui/RuntimeBadge';
import { ShortId } from '../ui/ShortId';
import { ErrorState } from '../ui/States';
import { SafeName } from '@/components/ui/SafeName';

function Fact({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="flex items-baseline gap-1.5" data-testid={testId}>
      <span className="text-faint">{label}</span>
      <span className="text-ink">{children}</span>
    </div>
  );
}

const SEPARATOR = <span className="mx-1.5 text-faint" aria-hidden>/</span>;

/** Fleet / agent / section / this page: the page's own crumb is text, the rest are links. */
function Breadcrumbs({ agentId, agentName }: { agentId: string; agentName: string }) {
  const crumbs = agentPageCrumbs(usePathname(), agentId);
  const link = 'hover:text-accent hover:underline';
  return (
    <nav className="mb-2 text-[12px] text-muted wrap-anywhere" aria-label="Breadcrumb" data-testid="breadcrumbs">
      <Link href={routes.fleet()} className={link}>
        Fleet
      </Link>
      {SEPARATOR}
      <Link href={routes.agent(agentId)} className={link} aria-current={crumbs.length === 0 ? 'page' : undefined} data-testid="crumb-agent">
        <SafeName name={agentName} />
      </Link>
      {crumbs.map((crumb) => (
        <span key={crumb.testId}>
          {SEPARATOR}
          {crumb.href ? (
            <Link href={crumb.href} className={link} data-testid={crumb.testId}>
              {crumb.label}
            </Link>
          ) : (
            <span aria-current="page" className="font-medium text-ink" data-testid={crumb.testId}>
              {crumb.label}
            </span>
          )}
        </span>
      ))}
    </nav>
  );
}

/** Agent name, runtime and headline facts, shown above every agent page. */
export function AgentHeader({ agentId }: { agentId: string }) {
  const { agent, error, refetch } = useAgent(agentId);
  if (error) return <ErrorState error={error} retry={() => void refetch()} />;
  return (
    <div className="mb-5" data-testid="agent-header">
      <Breadcrumbs agentId={agentId} agentName={agent?.name ?? '…'} />
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        {/* The name is the workspace's (untrusted): overrides badged, a long one cut, and broken anywhere to fit a phone. */}
        <h1 className="min-w-0 text-xl font-semibold tracking-tight wrap-anywhere" data-testid="agent-name">
          {agent ? <SafeName name={agent.name} /> : <span className="inline-block h-5 w-32 animate-pulse rounded bg-zinc-200 align-middle" />}
        </h1>
        {agent && <RuntimeBadge runtime={agent.runtime} />}
        <ShortId id={agentId} />
        <div className="ml-auto flex items-center gap-2">
          <LinkButton href={routes.workspace(agentId)} testId="open-workspace">
            Browse workspace
          </LinkButton>
        </div>
      </div>
      {agent && (
        <div className="mt-2 flex flex-wrap gap-x-6 gap-y-1 text-[12px]">
          <Fact label="Latest sequence">
            {agent.latest_sequence === null ? '—' : (
              <Link className="font-mono text-accent hover:underline" href={routes.sequence(agentId, agent.latest_sequence)}>
                #{agent.latest_sequence}
              </Link>
            )}
          </Fact>
          <Fact label="Last sync">{agent.last_sync_at ? <RelativeTime iso={agent.last_sync_at} /> : 'never'}</Fact>
          <Fact label="Live memories">
            <span className="font-mono">{agent.live_records}</span>
          </Fact>
          <Fact label="Last 7 days" testId="agent-changed-7d">
            <span className="font-mono">{agent.changed_records_7d}</span> changed in <span className="font-mono">{agent.syncs_7d}</span>{' '}
            {agent.syncs_7d === 1 ? 'sync' : 'syncs'}
          </Fact>
        </div>
      )}
    </div>
  );
}
