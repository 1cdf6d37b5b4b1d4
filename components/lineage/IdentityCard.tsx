import Link from '@/components/ui/Link';
import type { ReactNode } from 'react';
import type { Lineage } from '@/lib/ui/api-types';
import { formatDate, formatDateTime } from '@/lib/ui/format';
import { lineageKey } from '@/lib/ui/record-text';
import { routes } from '@/lib/ui/routes';
import { Badge } from '../ui/Badge';
import { RelativeTime } from '../ui/RelativeTime';
import { ShortId } from '../ui/ShortId';
import { PathText } from '../ui/PathText';
import { SafeName } from '../ui/SafeName';

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-[110px_1fr] gap-2 py-1.5" data-testid={testId}>
      <dt className="text-[12px] text-faint">{label}</dt>
      <dd className="min-w-0 text-[12px] text-ink">{children}</dd>
    </div>
  );
}

/** Who this memory is: its metadata, its current file and where it was born, last change and tombstone. */
export function IdentityCard({ agentId, lineage }: { agentId: string; lineage: Lineage }) {
  const r = lineage.record;
  const key = lineageKey(lineage);
  const tier = r.tags.find((t) => t.startsWith('tier:'));
  const seqLink = (seq: number) => (
    <Link href={routes.sequence(agentId, seq)} className="font-mono text-accent hover:underline">
      #{seq}
    </Link>
  );
  return (
    <dl className="divide-y divide-zinc-100" data-testid="identity-card">
      <Row label="Record id">
        <ShortId id={r.record_id} />
      </Row>
      {lineage.chain.length > 1 && (
        <Row label="Earlier ids" testId="identity-chain">
          <span className="flex flex-wrap gap-1.5">
            {lineage.chain.slice(0, -1).map((id) => (
              <ShortId key={id} id={id} />
            ))}
          </span>
        </Row>
      )}
      {key && (
        <Row label="Key" testId="identity-key">
          <span className="break-all font-mono"><SafeName name={key} max={255} /></span>
        </Row>
      )}
      <Row label="Type">
        <Badge>{r.memory_type}</Badge>
      </Row>
      <Row label="Namespace">
        <span className="font-mono">{r.namespace}</span>
      </Row>
      <Row label="Tier">{tier ? <Badge tone="accent">{tier}</Badge> : <span className="text-faint">—</span>}</Row>
      <Row label="File" testId="identity-file">
        {r.origin_file ? <PathText path={r.origin_file} /> : <span className="text-faint">—</span>}
      </Row>
      <Row label="Status" testId="identity-status">
        {r.deleted_seq !== null ? <Badge tone="delete">deleted</Badge> : <Badge tone={r.status === 'active' ? 'create' : 'update'}>{r.status}</Badge>}
      </Row>
      <Row label="Born" testId="identity-born">
        at sequence {seqLink(r.born_seq)} on <span title={formatDateTime(r.born_at)}>{formatDate(r.born_at)}</span>
        {r.born_file && r.born_file !== r.origin_file && (
          <>
            {' '}in <span className="break-all font-mono" data-testid="identity-born-file"><PathText path={r.born_file} /></span>
          </>
        )}
      </Row>
      <Row label="Last changed" testId="identity-last-changed">
        {seqLink(r.last_changed_seq)} · <RelativeTime iso={r.last_changed_at} />
      </Row>
      {r.deleted_seq !== null && (
        <Row label="Deleted" testId="identity-deleted">
          at sequence {seqLink(r.deleted_seq)}
        </Row>
      )}
      {r.tags.length > 0 && (
        <Row label="Tags">
          <span className="flex flex-wrap gap-1">
            {r.tags.map((t) => (
              <span key={t} className="font-mono text-muted">
                #{t}
              </span>
            ))}
          </span>
        </Row>
      )}
    </dl>
  );
}
