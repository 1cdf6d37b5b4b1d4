'use client';

import Link from '@/components/ui/Link';
import { useState } from 'react';
import type { DatabaseRecordItem } from '@/lib/history/queries';
import { DATABASE_PAGE_ROWS, useDatabaseRecords } from '@/lib/ui/hooks/use-database-records';
import { routes } from '@/lib/ui/routes';
import { Button } from '../ui/Button';
import { Panel } from '../ui/Panel';
import { PathText } from '../ui/PathText';
import { RelativeTime } from '../ui/RelativeTime';
import { SafeName } from '../ui/SafeName';
import { ShortId } from '../ui/ShortId';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';

const TH = 'px-4 py-2 text-left text-[11px] font-medium uppercase tracking-wide text-muted';

/**
 * The rows of a ZeroClaw agent's `brain.db` (its slice) or a Hermes agent's `state.db` sessions at
 * `seq` — the database `lineage restore --out` and the downloads rebuild from these records — as a
 * table (one card per row below 640 px), a page of `DATABASE_PAGE_ROWS` at a time: a 50,000-row
 * store draws 200 rows, never all of them. Each row links to its lineage and its last change. The rows come in record-id
 * order (the API's, and its cursor's: `lib/history/queries/database-records.ts`, code-unit order on both backends); the
 * table says so in its header and shows each row's record id under its key, so the order has a visible reason.
 */
export function DatabaseRecords({ agentId, seq }: { agentId: string; seq: number }) {
  // Cursors of the pages before the current one (the first page's is null); reset when the sequence changes.
  const [paging, setPaging] = useState<{ seq: number; trail: (string | null)[] }>({ seq, trail: [null] });
  const trail = paging.seq === seq ? paging.trail : [null];
  const cursor = trail[trail.length - 1] ?? null;
  const query = useDatabaseRecords(agentId, seq, cursor, true);
  const data = query.data;
  const first = (trail.length - 1) * DATABASE_PAGE_ROWS;

  return (
    <Panel
      flush
      testId="database-records"
      title={
        <span>
          {data?.database ? <PathText path={data.database} /> : 'Database'}{' '}
          <span className="font-normal text-faint" data-testid="database-total">
            {data ? `${data.total} ${data.total === 1 ? 'row' : 'rows'} at #${data.seq}` : ''}
          </span>
        </span>
      }
    >
      <p className="border-b border-line px-4 py-2 text-[12px] text-muted">
        Rebuilt from this agent’s records by <code className="font-mono">lineage restore</code> and the .tar.gz/.zip downloads (only this agent’s rows).{' '}
        <span data-testid="database-order-note">Listed by record id (shown under each key), ascending.</span>
      </p>
      {query.error ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : !data ? (
        <LoadingRows rows={4} label="Loading database rows" />
      ) : data.items.length === 0 ? (
        <EmptyState title={`No database rows at #${seq}`} />
      ) : (
        <div className={query.isPlaceholderData ? 'opacity-60' : undefined}>
          <table className="card-table w-full table-fixed border-collapse text-[13px]" data-testid="database-table">
            <thead className="border-b border-line bg-zinc-50/60">
              <tr>
                <th className={`${TH} w-[22%]`} aria-sort="ascending" data-testid="database-order">
                  Key <span className="normal-case tracking-normal text-faint">· by record id ↑</span>
                </th>
                <th className={`${TH} w-[14%]`}>Category</th>
                <th className={TH}>Content</th>
                <th className={`${TH} w-[16%]`}>Last change</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((item) => <DatabaseRow key={item.record_id} agentId={agentId} item={item} />)}
            </tbody>
          </table>
          <div className="flex flex-wrap items-center gap-2 border-t border-line px-4 py-2 text-[12px] text-muted">
            <span data-testid="database-range">Rows {first + 1}–{first + data.items.length} of {data.total}</span>
            <span className="ml-auto flex gap-2">
              {trail.length > 1 && (
                <Button testId="database-prev" onClick={() => setPaging({ seq, trail: trail.slice(0, -1) })}>Previous {DATABASE_PAGE_ROWS}</Button>
              )}
              {data.next_cursor && (
                <Button testId="database-next" disabled={query.isPlaceholderData} onClick={() => setPaging({ seq, trail: [...trail, data.next_cursor] })}>
                  Next {DATABASE_PAGE_ROWS}
                </Button>
              )}
            </span>
          </div>
        </div>
      )}
    </Panel>
  );
}

function DatabaseRow({ agentId, item }: { agentId: string; item: DatabaseRecordItem }) {
  return (
    <tr data-testid="database-row" data-record-id={item.record_id} className="border-b border-line align-top last:border-0 hover:bg-zinc-50">
      <td className="card-title px-4 py-2 break-words">
        <Link href={routes.lineage(agentId, item.record_id)} className="inline-block min-h-[24px] py-[2px] font-mono text-[12px] leading-[20px] text-accent hover:underline" data-testid="database-row-key">
          <SafeName name={item.key ?? item.record_id} />
        </Link>
        <div data-testid="database-row-id">
          <ShortId id={item.record_id} />
        </div>
      </td>
      <td className="px-4 py-2 break-words text-muted" data-label="Category">{item.category ?? '—'}</td>
      <td className="px-4 py-2" data-label="Content">
        <p className="line-clamp-2 break-words font-mono text-[12px] leading-5 text-muted" data-testid="database-row-content">
          {item.content}{item.content_length > item.content.length ? '…' : ''}
        </p>
      </td>
      <td className="px-4 py-2 whitespace-nowrap" data-label="Last change">
        <Link href={routes.sequence(agentId, item.seq)} className="font-mono text-accent hover:underline" data-testid="database-row-seq">#{item.seq}</Link>{' '}
        <span className="text-[11px] text-faint"><RelativeTime iso={item.synced_at} /></span>
      </td>
    </tr>
  );
}
