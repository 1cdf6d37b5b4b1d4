'use client';

import Link from '@/components/ui/Link';
import type { SequenceDetail, SequenceOp } from '@/lib/ui/api-types';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { useSequence, useSequenceOps } from '@/lib/ui/hooks/use-sequences';
import { formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { Badge } from '../ui/Badge';
import { LinkButton } from '../ui/Button';
import { OpCounts } from '../ui/OpBadge';
import { PageButton } from '../ui/PageButtons';
import { Panel } from '../ui/Panel';
import { RelativeTime } from '../ui/RelativeTime';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { OpCard } from './OpCard';
import { RawFileList } from './RawFileList';

const SECTIONS: { op: SequenceOp['op']; title: string }[] = [
  { op: 'create', title: 'Created' },
  { op: 'update', title: 'Updated' },
  { op: 'move', title: 'Moved' },
  { op: 'delete', title: 'Deleted' },
];

/** One op kind of the sequence: a bounded window of its pages, "load more" below. */
function OpSection({ agentId, detail, op, title }: { agentId: string; detail: SequenceDetail; op: SequenceOp['op']; title: string }) {
  const query = useSequenceOps(agentId, detail, op);
  const total = detail.op_counts[op];
  if (total === 0 || !query.data) return null;
  const ops = query.data.pages.flatMap((p) => p.items);
  return (
    <section data-testid={`ops-${op}`} className="space-y-2">
      <h3 className="text-[12px] font-semibold uppercase tracking-wide text-muted">
        {title} <span className="font-normal text-faint" data-testid="ops-count">{total}</span>
        {ops.length < total && <span className="ml-2 font-normal normal-case text-faint" data-testid="ops-shown">{ops.length} shown</span>}
      </h3>
      <PageButton query={query} edge="start" back={`Show earlier ${title.toLowerCase()}`} testId={`load-earlier-${op}`} />
      {ops.map((o) => (
        <OpCard key={`${o.entry_kind}-${o.record_id}`} agentId={agentId} seq={detail.seq} op={o} />
      ))}
      <PageButton query={query} more={`Load more ${title.toLowerCase()}`} testId={`load-more-${op}`} />
    </section>
  );
}

/** What one sync did: record ops by kind next to the raw files it changed. */
export function SequenceView({ agentId, seq }: { agentId: string; seq: number }) {
  const { agent } = useAgent(agentId);
  const query = useSequence(agentId, seq);
  const latest = agent?.latest_sequence ?? null;
  const nav = 'font-mono text-[12px] text-accent hover:underline';
  return (
    <div data-testid="sequence-page" className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold tracking-tight">
          Sequence <span className="font-mono">#{seq}</span>
        </h2>
        {query.data?.kind === 'snapshot' && <Badge tone="accent">snapshot</Badge>}
        {query.data && (
          <span className="text-[12px] text-muted">
            synced <RelativeTime iso={query.data.synced_at} /> · {formatDateTime(query.data.synced_at)}
          </span>
        )}
        {/* Only around a sequence that loaded: a failed one has no neighbours or workspace to offer. */}
        {query.data && (
          <span className="ml-auto flex items-center gap-3">
            {seq > 0 && (
              <Link href={routes.sequence(agentId, seq - 1)} className={nav} data-testid="prev-sequence">
                ← #{seq - 1}
              </Link>
            )}
            {latest !== null && seq < latest && (
              <Link href={routes.sequence(agentId, seq + 1)} className={nav} data-testid="next-sequence">
                #{seq + 1} →
              </Link>
            )}
            <LinkButton href={routes.workspace(agentId, seq)} testId="sequence-workspace">
              Workspace at #{seq}
            </LinkButton>
          </span>
        )}
      </div>
      {query.isPending ? (
        <LoadingRows rows={8} label="Loading sequence" />
      ) : query.error ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : (
        <div className="grid grid-cols-1 items-start gap-4 lg:grid-cols-[minmax(0,1fr)_340px]">
          <div className="space-y-5">
            <div className="flex items-center gap-3 text-[12px] text-muted">
              <OpCounts
                creates={query.data.op_counts.create}
                updates={query.data.op_counts.update}
                deletes={query.data.op_counts.delete}
                moves={query.data.op_counts.move}
              />
              <span>record operations</span>
            </div>
            {query.data.ops.length === 0 && (
              <Panel>
                <EmptyState title="No record changed in this sync">Only raw files changed.</EmptyState>
              </Panel>
            )}
            {SECTIONS.map(({ op, title }) => (
              <OpSection key={op} agentId={agentId} detail={query.data} op={op} title={title} />
            ))}
          </div>
          <Panel title={`Raw files (${query.data.raw_count})`} flush className="lg:sticky lg:top-16">
            <RawFileList agentId={agentId} detail={query.data} />
          </Panel>
        </div>
      )}
    </div>
  );
}
