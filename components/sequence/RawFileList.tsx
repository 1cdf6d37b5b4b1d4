'use client';

import { useState } from 'react';
import Link from '@/components/ui/Link';
import type { SequenceDetail, SequenceOp } from '@/lib/ui/api-types';
import { useSequenceRaw } from '@/lib/ui/hooks/use-sequences';
import { recordTitle } from '@/lib/ui/record-text';
import { formatBytes, plural } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { inlineLinks } from '@/lib/ui/raw-file-window';
import { Badge, type BadgeTone } from '../ui/Badge';
import { PageButton } from '../ui/PageButtons';
import { EmptyState } from '../ui/States';
import { PathText } from '../ui/PathText';
import { visibleName } from '../ui/SafeName';

const TONE: Record<string, BadgeTone> = { added: 'create', modified: 'update', deleted: 'delete' };
const SIGN: Record<SequenceOp['op'], { sign: string; color: string }> = {
  create: { sign: '+', color: 'text-create' },
  update: { sign: '~', color: 'text-update' },
  delete: { sign: '−', color: 'text-delete' },
  move: { sign: '→', color: 'text-violet-700' },
};

/**
 * The raw workspace files a sync changed, each opening the workspace at that sequence, with the
 * record ops each file carries (at most 20 per file from the API): a bounded window of pages from
 * the API ("load more" below), and a budget of op links inline (inlineLinks; files further down
 * list theirs behind a button).
 */
export function RawFileList({ agentId, detail }: { agentId: string; detail: SequenceDetail }) {
  const { seq, ops } = detail;
  const query = useSequenceRaw(agentId, detail);
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const byId = new Map(ops.map((o) => [o.record_id, o]));
  const files = query.data.pages.flatMap((p) => p.items);
  if (files.length === 0) return <EmptyState title="No raw file changed" />;
  const inline = inlineLinks(files);
  return (
    <>
    <PageButton query={query} edge="start" back="Show earlier files" testId="raw-file-earlier-files" />
    <ul className="divide-y divide-line" data-testid="raw-file-list">
      {files.map((f) => (
        <li key={`${f.entry_kind}-${f.path}`} data-testid="raw-file" data-path={f.path} className="px-4 py-2">
          <div className="flex items-center gap-2">
            <Badge tone={TONE[f.change] ?? 'neutral'}>{f.change}</Badge>
            {f.change === 'deleted' ? (
              <span className="min-w-0 text-[12px] text-muted line-through" title={visibleName(f.path)} data-testid="raw-file-path">
                <PathText path={f.path} />
              </span>
            ) : (
              <Link href={routes.workspace(agentId, seq, f.path)} className="min-w-0 text-[12px] text-accent hover:underline" title={visibleName(f.path)} data-testid="raw-file-path">
                <PathText path={f.path} />
              </Link>
            )}
          </div>
          <div className="mt-0.5 pl-1 text-[11px] text-faint">
            {f.change !== 'deleted' && `${formatBytes(f.size)} · `}
            {f.record_count > 0 ? plural(f.record_count, 'record op') : 'no record op'}
          </div>
          {f.record_ids.length > 0 && !inline.has(f.path) && !opened.has(f.path) && (
            <button
              type="button"
              className="mt-1 pl-1 text-[11px] text-accent hover:underline"
              data-testid="raw-file-ops-toggle"
              onClick={() => setOpened(new Set([...opened, f.path]))}
            >
              Show its record ops
            </button>
          )}
          {f.record_ids.length > 0 && (inline.has(f.path) || opened.has(f.path)) && (
            <ul className="mt-1 pl-1">
              {f.record_ids.map((id) => {
                const op = byId.get(id);
                return (
                  <li key={id} className="text-[11px]">
                    <a href={`#op-${id}`} className="block min-h-[24px] truncate py-[2px] leading-[20px] text-muted hover:text-accent hover:underline" data-testid="raw-file-op" title={id}>
                      <span className={op ? SIGN[op.op].color : 'text-update'}>{op ? SIGN[op.op].sign : '~'}</span>{' '}
                      {op ? recordTitle(op) : id.slice(0, 8)}
                    </a>
                  </li>
                );
              })}
              {f.record_count > f.record_ids.length && (
                <li className="text-[11px] text-faint" data-testid="raw-file-more">and {f.record_count - f.record_ids.length} more</li>
              )}
            </ul>
          )}
        </li>
      ))}
    </ul>
    <PageButton query={query} more="Load more files" testId="raw-file-more-files" />
    </>
  );
}
