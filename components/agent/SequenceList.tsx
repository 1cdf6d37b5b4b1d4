'use client';

import Link from '@/components/ui/Link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useSequences } from '@/lib/ui/hooks/use-sequences';
import { formatBytes, formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { OpCounts } from '../ui/OpBadge';
import { RelativeTime } from '../ui/RelativeTime';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { CompareBar, pickSequence } from '../compare/CompareBar';

const TH = 'px-4 py-2 text-left text-[11px] font-medium uppercase tracking-wide text-faint';

/** Every sequence of the agent, newest first, each opening the sequence view. */
export function SequenceList({ agentId }: { agentId: string }) {
  const query = useSequences(agentId);
  const router = useRouter();
  const [picked, setPicked] = useState<number[]>([]);
  // The whole row opens its sequence; its own links (and text being selected) keep their behaviour.
  const openRow = (event: React.MouseEvent, seq: number) => {
    if ((event.target as Element).closest('a, button, input, label') || window.getSelection()?.toString()) return;
    router.push(routes.sequence(agentId, seq));
  };
  if (query.isPending) return <LoadingRows rows={6} label="Loading sequences" />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const items = query.data.pages.flatMap((p) => p.items);
  if (items.length === 0) return <EmptyState title="No syncs yet" />;
  return (
    <>
      <CompareBar agentId={agentId} picked={picked} onClear={() => setPicked([])} />
      <table className="card-table w-full border-collapse text-[13px]" data-testid="sequence-list">
        <thead className="border-b border-line bg-zinc-50/60">
          <tr>
            <th className={TH}>Sequence</th>
            <th className={TH}>Synced</th>
            <th className={TH}>Records</th>
            <th className={TH}>Raw files</th>
            <th className={`${TH} text-right`}>Archive</th>
          </tr>
        </thead>
        <tbody>
          {items.map((s) => (
            <tr
              key={`${s.seq}-${s.kind}`}
              data-testid="sequence-row"
              data-seq={s.seq}
              onClick={(event) => openRow(event, s.seq)}
              className="cursor-pointer border-b border-line last:border-0 hover:bg-zinc-50"
            >
              <td className="px-4 py-2 card-title">
                <input
                  type="checkbox"
                  checked={picked.includes(s.seq)}
                  onChange={() => setPicked((p) => pickSequence(p, s.seq))}
                  aria-label={`Select sequence #${s.seq} to compare`}
                  data-testid="compare-pick"
                  className="m-1 mr-2 h-4 w-4 align-middle"
                />
                <Link href={routes.sequence(agentId, s.seq)} className="inline-flex min-h-[24px] min-w-[24px] items-center align-middle font-mono font-semibold text-accent hover:underline">
                  #{s.seq}
                </Link>
                {s.kind === 'snapshot' && (
                  <span className="ml-2">
                    <Badge tone="accent">snapshot</Badge>
                  </span>
                )}
              </td>
              <td className="px-4 py-2 text-muted" data-label="Synced">
                <RelativeTime iso={s.synced_at} />
                <span className="ml-2 text-[11px] text-faint">{formatDateTime(s.synced_at)}</span>
              </td>
              <td className="px-4 py-2" data-label="Records">
                <OpCounts creates={s.creates} updates={s.updates} deletes={s.deletes} moves={s.moves} />
              </td>
              <td className="px-4 py-2 font-mono text-[12px] text-muted" data-label="Raw files">
                {s.raw_changed} changed{s.raw_deleted > 0 && <span className="text-delete">, {s.raw_deleted} deleted</span>}
              </td>
              <td className="px-4 py-2 text-right font-mono text-[12px] text-faint" data-label="Archive">{formatBytes(s.size_bytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {query.hasNextPage && (
        <div className="border-t border-line p-3 text-center">
          <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage} testId="load-more-sequences">
            {query.isFetchingNextPage ? 'Loading…' : 'Load older sequences'}
          </Button>
        </div>
      )}
    </>
  );
}
