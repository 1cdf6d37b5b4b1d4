'use client';

import { useEffect } from 'react';
import { AS_OF_FORMAT, parseAsOf } from '@/lib/ui/as-of';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { intParam, intParamProblem } from '@/lib/ui/url-params';
import { useSequenceAt, useWorkspaceTree } from '@/lib/ui/hooks/use-workspace';
import { useRestoredDatabase } from '@/lib/ui/hooks/use-database-records';
import { formatDateTime, plural } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { LinkButton } from '../ui/Button';
import { Panel } from '../ui/Panel';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { DatabaseRecords } from './DatabaseRecords';
import { DownloadMenu } from './DownloadMenu';
import { FileTree } from './FileTree';
import { FileViewer } from './FileViewer';
import { SequenceControls } from './SequenceControls';
import { WorkspaceNotFound } from './WorkspaceNotFound';
import { visibleName } from '../ui/SafeName';

/**
 * The workspace as it was at `?seq=` (latest by default), with `?file=` open and `?compare=` to diff.
 * `?as_of=` (a UTC date and time) resolves to the sequence in force then and is replaced by it.
 */
export function WorkspaceView({ agentId }: { agentId: string }) {
  const url = useUrlState();
  const { agent, error: agentError } = useAgent(agentId);
  const latest = agent?.latest_sequence ?? null;
  const asked = intParam(url.get('seq'));
  const problem = intParamProblem('seq', url.get('seq')) ?? intParamProblem('compare', url.get('compare'));
  // A malformed ?seq= is said, not read as the latest: nothing is loaded for it.
  const seq = problem ? null : (asked ?? latest);
  const file = url.get('file');
  const compare = intParam(url.get('compare'));
  const tree = useWorkspaceTree(agentId, seq);
  // ZeroClaw and Hermes workspaces hold a database rebuilt from the records (what the downloads carry).
  const hasDatabase = agent?.runtime === 'zeroclaw' || agent?.runtime === 'hermes';
  const database = useRestoredDatabase(agentId, seq ?? 0, hasDatabase && seq !== null);
  const asOf = url.get('as_of');
  const asOfIso = parseAsOf(asOf);
  const resolved = useSequenceAt(agentId, asOfIso);
  const found = resolved.data;
  useEffect(() => {
    if (asOf !== null && found && latest !== null) url.set({ as_of: null, seq: found.sequence === latest ? null : found.sequence }, { replace: true });
  }, [asOf, found, latest, url.set]);
  const asOfError =
    asOf === null ? null
    : asOfIso === null ? `“${asOf}” is not a date and time (${AS_OF_FORMAT}, UTC)`
    : resolved.error ? resolved.error.message
    : found === null ? 'no sync yet at that time'
    : null;

  if (agentError) return null;
  if (problem) return <ErrorState error={new Error(problem)} />;
  if (latest === null || seq === null) {
    return agent ? <EmptyState title="This agent has never synced" /> : <LoadingRows rows={8} label="Loading workspace" />;
  }
  if (seq > latest) return <WorkspaceNotFound />;
  const openFile = tree.data?.files.find((f) => f.path === file);
  const fileExists = tree.data ? openFile !== undefined : true;

  return (
    <div className="space-y-4" data-testid="workspace-page" data-seq={seq}>
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold tracking-tight">
          Workspace at <span className="font-mono" data-testid="workspace-current-seq">#{seq}</span>
        </h2>
        {seq === latest && <span className="rounded bg-zinc-100 px-1.5 py-px text-[11px] text-muted">latest</span>}
        <span className="ml-auto flex flex-wrap items-center gap-2">
          <LinkButton href={seq > 0 ? routes.compare(agentId, seq - 1, seq) : routes.compare(agentId, 0, latest)} testId="workspace-compare">Compare</LinkButton>
          <DownloadMenu agentId={agentId} seq={seq} runtime={agent?.runtime ?? null} />
        </span>
      </div>
      <Panel>
        <SequenceControls
          seq={seq}
          latest={latest}
          asOf={asOf}
          asOfError={asOfError}
          onChange={(s) => url.set({ seq: s, as_of: null, compare: compare !== null && compare === s ? null : compare })}
          onAsOf={(value) => url.set({ as_of: value, seq: null })}
        />
      </Panel>
      {hasDatabase && (
        <div id="database-records" className="scroll-mt-16">
          <DatabaseRecords agentId={agentId} seq={seq} />
        </div>
      )}
      {tree.error ? (
        <ErrorState error={tree.error} retry={() => void tree.refetch()} />
      ) : (
        <div className="grid grid-cols-1 items-start gap-4 lg:grid-cols-[300px_minmax(0,1fr)]">
          <Panel
            flush
            className="max-h-[60vh] overflow-y-auto lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)]"
            title={tree.data ? <span>Files <span className="font-normal text-faint">{tree.data.files.length}</span></span> : 'Files'}
          >
            {tree.isPending ? (
              <LoadingRows rows={6} label="Loading files" />
            ) : tree.data.files.length === 0 ? (
              <EmptyState title="No files at this sequence" />
            ) : (
              <div className={tree.isPlaceholderData ? 'opacity-60' : undefined}>
                <FileTree
                  files={tree.data.files}
                  selected={file}
                  seq={seq}
                  onSelect={(p) => url.set({ file: p })}
                  database={hasDatabase ? { path: database.data?.path ?? (agent?.runtime === 'zeroclaw' ? 'data/memory/brain.db' : 'state.db'), size: database.data?.seq === seq ? database.data.size : null, seq } : null}
                />
              </div>
            )}
          </Panel>
          <Panel flush className="min-h-64">
            {!file ? (
              <EmptyState title="Pick a file" testId="no-file">
                {tree.data && `${plural(tree.data.files.length, 'file')} at #${seq}. Files written in this sync are marked “changed”.`}
              </EmptyState>
            ) : !fileExists && !tree.isPlaceholderData ? (
              <EmptyState title={`${visibleName(file)} does not exist at #${seq}`} testId="file-missing">
                Move the sequence forward, or compare with a sequence where it exists.
              </EmptyState>
            ) : (
              <FileViewer agentId={agentId} seq={seq} latest={latest} path={file} reconstructed={openFile?.reconstructed === true} compare={compare} onCompare={(c) => url.set({ compare: c })} />
            )}
          </Panel>
        </div>
      )}
      {tree.data && agent?.last_sync_at && seq === latest && (
        <p className="text-[11px] text-faint">Latest sync {formatDateTime(agent.last_sync_at)}</p>
      )}
    </div>
  );
}
