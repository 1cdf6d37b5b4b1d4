import type { RecordOp } from '@/lib/ui/api-types';
import { Badge, type BadgeTone } from './Badge';

const LABEL: Record<RecordOp, string> = { create: 'created', update: 'updated', delete: 'deleted', move: 'moved' };
const TONE: Record<RecordOp, BadgeTone> = { create: 'create', update: 'update', delete: 'delete', move: 'violet' };

/** `renamed`: a move within one file (a section's heading changed, its body kept) — "renamed", not "moved". */
export function OpBadge({ op, renamed = false }: { op: RecordOp; renamed?: boolean }) {
  return (
    <Badge tone={TONE[op]} testId="op-badge">
      {op === 'move' && renamed ? 'renamed' : LABEL[op]}
    </Badge>
  );
}

/** "+3 ~1 −2 →1" op counts in their colours; zeros are dimmed, and moves shown only when there are some. */
export function OpCounts({ creates, updates, deletes, moves = 0 }: { creates: number; updates: number; deletes: number; moves?: number }) {
  const cell = (n: number, sign: string, color: string, label: string) => (
    <span title={`${n} ${label}`} className={n === 0 ? 'text-faint' : color} data-testid={`op-count-${label}`}>
      {sign}
      {n}
    </span>
  );
  return (
    <span className="inline-flex gap-2 font-mono text-[12px] tabular-nums" data-testid="op-counts">
      {cell(creates, '+', 'text-create', 'created')}
      {cell(updates, '~', 'text-update', 'updated')}
      {cell(deletes, '−', 'text-delete', 'deleted')}
      {moves > 0 && cell(moves, '→', 'text-violet-700', 'moved')}
    </span>
  );
}
