import { memo } from 'react';
import Link from '@/components/ui/Link';
import type { LiveRecord } from '@/lib/ui/api-types';
import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { FIRST_SCREEN_ROWS } from '@/lib/ui/page-window';
import { bodyPreview, recordTitle } from '@/lib/ui/record-text';
import { routes } from '@/lib/ui/routes';
import { Badge } from '../ui/Badge';
import { ShortId } from '../ui/ShortId';
import { PathText } from '../ui/PathText';

function RecordRow({ agentId, record }: { agentId: string; record: LiveRecord }) {
  const extraTags = record.tags.filter((t) => !t.startsWith('tier:'));
  return (
    <li
      data-testid="record-row"
      data-record-id={record.record_id}
      data-memory-type={record.memory_type}
      data-namespace={record.namespace}
      data-status={record.status}
      data-file={record.origin_file ?? ''}
      data-heading={record.heading ?? ''}
      data-seq={record.seq}
      className="px-4 py-2.5 hover:bg-zinc-50"
    >
      <div className="flex items-baseline gap-2">
        <Link href={routes.lineage(agentId, record.record_id)} className="truncate font-medium text-ink hover:text-accent hover:underline" data-testid="record-link">
          {recordTitle(record)}
        </Link>
        {/* No copy button per row: 200 rows × 4 elements; the lineage page copies the id. */}
        <ShortId id={record.record_id} copy={false} />
        <span className="ml-auto shrink-0 text-[11px] text-faint">
          last changed{' '}
          <Link href={routes.sequence(agentId, record.seq)} className="font-mono text-accent hover:underline">
            #{record.seq}
          </Link>
        </span>
      </div>
      <div className="mt-1 flex flex-wrap items-center gap-1.5 text-[11px]">
        {record.origin_file && <PathText path={record.origin_file} className="mr-1 text-muted" />}
        <Badge>{record.memory_type}</Badge>
        {record.namespace !== record.memory_type && <Badge tone="neutral">ns:{record.namespace}</Badge>}
        {record.tier && <Badge tone="accent">tier:{record.tier}</Badge>}
        {record.status !== 'active' && <Badge tone="update">{record.status}</Badge>}
        {extraTags.map((t) => (
          <span key={t} className="font-mono text-faint">
            #{t}
          </span>
        ))}
      </div>
      <p className="mt-1 line-clamp-2 font-mono text-[12px] leading-5 text-muted">{bodyPreview(record.content, record.heading, record.key)}</p>
    </li>
  );
}

/**
 * A record below the first screen as the server renders it: its title, a plain link (the markup
 * next/link draws; a reader without JavaScript still finds it), in a row about the full one's
 * height. The full row replaces it right after hydration; until then it is no `record-row`.
 */
function DeferredRecordRow({ agentId, record }: { agentId: string; record: LiveRecord }) {
  return (
    <li data-testid="record-row-deferred" data-record-id={record.record_id} className="px-4 py-2.5">
      <a href={routes.lineage(agentId, record.record_id)} className="font-medium text-ink">
        {recordTitle(record)}
      </a>
      <div className="h-[50px]" />
    </li>
  );
}

/** Memoised: a list that loads another page redraws only the new rows. */
const Row = memo(RecordRow);

export function RecordList({ agentId, records }: { agentId: string; records: LiveRecord[] }) {
  const hydrated = useHydrated();
  return (
    <ul className="divide-y divide-line" data-testid="record-list">
      {records.map((r, i) => (!hydrated && i >= FIRST_SCREEN_ROWS
        ? <DeferredRecordRow key={r.record_id} agentId={agentId} record={r} />
        : <Row key={r.record_id} agentId={agentId} record={r} />))}
    </ul>
  );
}
