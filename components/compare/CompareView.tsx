import type { ReactNode } from 'react';
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import { plural } from '@/lib/ui/format';
import { Panel } from '../ui/Panel';
import { CompareForm } from './CompareForm';
import Link from '@/components/ui/Link';
import { routes } from '@/lib/ui/routes';
import { ChangedFileEntry, ChangedFileRow, FileRow, type ChangedFile } from './FileEntries';
import { COMPARE_MORE_LIMIT, COMPARE_SERVER_DIFFS } from './limits';
import { MemoryEntry, type MemoryChange } from './MemoryEntry';

/**
 * How many of the listed updates changed only whitespace (`whitespace_only`), for the Updated heading:
 * "1 whitespace only" — "… of them" when the list holds the first `limit` of more (the others' texts
 * are not read, so they are not counted). Null when none did. They stay counted as updates: their
 * stored texts changed.
 */
export function whitespaceOnlyNote(updated: readonly { whitespace_only: boolean }[], count: number): string | null {
  const n = updated.filter((u) => u.whitespace_only).length;
  if (n === 0) return null;
  return `${n}${updated.length < count ? ' of them' : ''} whitespace only`;
}

function Group({ title, count, shown, note, testId, children }: { title: string; count: number; shown: number; note?: string | null; testId: string; children: ReactNode }) {
  if (count === 0) return null;
  const noted = note ? <span data-testid={`${testId}-note`}>{note}</span> : null;
  return (
    <section data-testid={testId} className="space-y-2">
      <h3 className="text-[13px] font-semibold">
        {title} <span className="font-normal text-muted">{count}</span>
        {/* A space, not only the margin: a screen reader reads "Updated 2 (…", not "Updated 2(…". */}
        {(shown < count || noted) && ' '}
        {shown < count ? (
          <span className="ml-2 text-[12px] font-normal text-muted">(the first {shown} shown{noted && <>, {noted}</>})</span>
        ) : noted && <span className="ml-2 text-[12px] font-normal text-muted">({noted})</span>}
      </h3>
      {children}
    </section>
  );
}

/** The net change of the workspace from `from` to `to`: memories, then files, each kind in its own group. */
export function CompareView({ agentId, latest, comparison, changedFiles }: {
  agentId: string;
  latest: number;
  comparison: WorkspaceComparison;
  changedFiles: ChangedFile[];
}) {
  const { from, to, memories: m, files: f, counts } = comparison;
  const diffed = changedFiles.filter((file) => file.diff !== 'listed');
  const listed = changedFiles.filter((file) => file.diff === 'listed');
  const memoryTotal = counts.created + counts.updated + counts.deleted + counts.moved;
  const fileTotal = counts.added + counts.changed + counts.removed;
  const groups: { title: string; kind: MemoryChange['kind']; count: number; note?: string | null; items: MemoryChange[] }[] = [
    { title: 'Created', kind: 'created', count: counts.created, items: m.created.map((after) => ({ kind: 'created', after })) },
    {
      title: 'Updated', kind: 'updated', count: counts.updated, note: whitespaceOnlyNote(m.updated, counts.updated),
      items: m.updated.map((u) => ({ kind: 'updated', ...u })),
    },
    { title: 'Moved', kind: 'moved', count: counts.moved, items: m.moved.map((u) => ({ kind: 'moved', ...u })) },
    { title: 'Deleted', kind: 'deleted', count: counts.deleted, items: m.deleted.map((before) => ({ kind: 'deleted', before })) },
  ];
  return (
    <div className="space-y-4" data-testid="compare-page" data-from={from} data-to={to}>
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold tracking-tight" data-testid="compare-title">
          Compare <span className="font-mono">#{from}</span> → <span className="font-mono">#{to}</span>
        </h2>
        <span className="text-[12px] text-muted" data-testid="compare-summary">
          {memoryTotal} {memoryTotal === 1 ? 'memory' : 'memories'} and {plural(fileTotal, 'file')} changed
        </span>
        {comparison.truncated && comparison.limit < COMPARE_MORE_LIMIT && (
          <Link href={`${routes.compare(agentId, from, to)}&limit=${COMPARE_MORE_LIMIT}`} className="text-[12px] text-accent hover:underline" data-testid="compare-more">
            Show up to {COMPARE_MORE_LIMIT} of each
          </Link>
        )}
        <span className="ml-auto">
          <CompareForm agentId={agentId} from={from} to={to} latest={latest} />
        </span>
      </div>
      {memoryTotal + fileTotal === 0 && (
        <Panel testId="compare-empty">
          <p className="text-[13px] text-muted">{from === to ? `#${from} compared with itself: nothing changed.` : `Nothing changed between #${from} and #${to}.`}</p>
        </Panel>
      )}
      {memoryTotal > 0 && (
        <Panel title="Memories" testId="compare-memories">
          <div className="space-y-5">
            {groups.map((g, k) => {
              // Entries before this group's, in page order: the first COMPARE_SERVER_DIFFS get their diff from the server.
              const before = groups.slice(0, k).reduce((n, o) => n + o.items.length, 0);
              return (
                <Group key={g.kind} title={g.title} count={g.count} shown={g.items.length} note={g.note} testId={`compare-${g.kind}`}>
                  <ul className="space-y-3">
                    {g.items.map((change, i) => <MemoryEntry key={i} agentId={agentId} change={change} serverDiff={before + i < COMPARE_SERVER_DIFFS} />)}
                  </ul>
                </Group>
              );
            })}
          </div>
        </Panel>
      )}
      {fileTotal > 0 && (
        <Panel title="Files" testId="compare-files">
          <div className="space-y-5">
            <Group title="Changed" count={counts.changed} shown={changedFiles.length} testId="compare-changed">
              <ul className="space-y-3">
                {diffed.map((file) => <ChangedFileEntry key={file.path} agentId={agentId} file={file} from={from} to={to} />)}
              </ul>
              {listed.length > 0 && (
                <>
                  <p className="text-[12px] text-muted">{plural(listed.length, 'more changed file')}, each linked to its compare in the workspace:</p>
                  <ul className="divide-y divide-line rounded-md border border-line" data-testid="compare-changed-listed">
                    {listed.map((file) => <ChangedFileRow key={file.path} agentId={agentId} file={file} from={from} to={to} />)}
                  </ul>
                </>
              )}
            </Group>
            <Group title="Added" count={counts.added} shown={f.added.length} testId="compare-added">
              <ul className="divide-y divide-line rounded-md border border-line">
                {f.added.map((file) => <FileRow key={file.path} agentId={agentId} file={file} kind="added" />)}
              </ul>
            </Group>
            <Group title="Removed" count={counts.removed} shown={f.removed.length} testId="compare-removed">
              <ul className="divide-y divide-line rounded-md border border-line">
                {f.removed.map((file) => <FileRow key={file.path} agentId={agentId} file={file} kind="removed" />)}
              </ul>
            </Group>
          </div>
        </Panel>
      )}
    </div>
  );
}
