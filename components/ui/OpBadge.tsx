import type { RecordOp } from '@/lib/ui/api-types';
import { Badge } from './Badge';

const LABEL: Record<RecordOp, string> = { create: 'created', update: 'updated', delete: 'deleted' };

export function OpBadge({ op }: { op: RecordOp }) {
  return (
    <Badge tone={op} testId="op-badge">
      {LABEL[op]}
    </Badge>
  );
}

/** "+3 ~1 −2" op counts in their colours; zeros are dimmed. */
export function OpCounts({ creates, updates, deletes }: { creates: number; updates: number; deletes: number }) {
  const cell = (n: number, sign: string, color: string, label: string) => (
    <span title={`${n} ${label}`} className={n === 0 ? 'text-faint' : color}>
      {sign}
      {n}
    </span>
  );
  return (
    <span className="inline-flex gap-2 font-mono text-[12px] tabular-nums" data-testid="op-counts">
      {cell(creates, '+', 'text-create', 'created')}
      {cell(updates, '~', 'text-update', 'updated')}
      {cell(deletes, '−', 'text-delete', 'deleted')}
    </span>
  );
}
