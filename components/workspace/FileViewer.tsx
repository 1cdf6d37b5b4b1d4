'use client';

import { useMemo } from 'react';
import { ApiError, workspaceFileUrl } from '@/lib/ui/api-client';
import type { LiveRecord } from '@/lib/ui/api-types';
import { formatBytes, plural } from '@/lib/ui/format';
import { useFileRecords } from '@/lib/ui/hooks/use-records';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { useWorkspaceFile } from '@/lib/ui/hooks/use-workspace';
import { locateSections } from '@/lib/ui/sections';
import { Segmented } from '../ui/Field';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { CompareControl } from './CompareControl';
import { FileBlame } from './FileBlame';
import { FileCompare } from './FileCompare';
import { SectionedFile } from './SectionedFile';
import { PathText } from '../ui/PathText';

/**
 * One file at `seq`: its record sections marked, its blame (`?view=blame`: each section's birth and
 * last change), or its line diff against `compare` (a compare replaces the blame while it is chosen).
 */
type FileView = 'file' | 'blame';
const VIEWS: { value: FileView; label: string }[] = [{ value: 'file', label: 'File' }, { value: 'blame', label: 'Blame' }];

export function FileViewer({ agentId, seq, latest, path, reconstructed = false, compare, onCompare }: {
  agentId: string;
  seq: number;
  latest: number;
  path: string;
  /** The file's content at `seq` was rendered from records (a record-only delta), not synced as bytes. */
  reconstructed?: boolean;
  compare: number | null;
  onCompare: (seq: number | null) => void;
}) {
  const file = useWorkspaceFile(agentId, seq, path);
  const comparable = compare !== null && compare <= latest ? compare : null;
  const other = useWorkspaceFile(agentId, comparable, comparable === null ? null : path);
  const records = useFileRecords(agentId, seq, path);
  const live: LiveRecord[] = useMemo(() => records.data ?? [], [records.data]);
  const missingThen = other.error instanceof ApiError && other.error.status === 404;
  const url = useUrlState();
  const view: FileView = url.get('view') === 'blame' && compare === null ? 'blame' : 'file';
  const lastChange = live.reduce<number | null>((m, r) => (m === null || r.seq > m ? r.seq : m), null);
  const sections = useMemo(() => (file.data?.text ? locateSections(file.data.text, live) : []), [file.data?.text, live]);

  return (
    <div data-testid="file-viewer" data-path={path}>
      <header className="flex flex-wrap items-center gap-3 border-b border-line px-4 py-2">
        <h3 className="min-w-0 text-[13px] font-semibold" data-testid="open-file">
          <PathText path={path} />
        </h3>
        {file.data && <span className="text-[12px] text-faint">{formatBytes(file.data.size)}</span>}
        {records.error && <span className="text-[12px] text-delete">record sections could not be loaded</span>}
        {live.length > 0 && <span className="text-[12px] text-muted" data-testid="file-record-count">{plural(live.length, 'memory record')}</span>}
        <span className="ml-auto flex flex-wrap items-center gap-3">
          <Segmented
            label="Show the file or its blame"
            value={view}
            options={VIEWS}
            onChange={(v) => url.set({ view: v === 'blame' ? 'blame' : null, compare: null })}
            testId="file-view-mode"
          />
          <CompareControl seq={seq} latest={latest} compare={compare} lastChange={lastChange} onCompare={onCompare} />
          <a href={workspaceFileUrl(agentId, seq, path)} target="_blank" rel="noreferrer" className="text-[12px] text-accent hover:underline">
            Raw
          </a>
        </span>
      </header>
      {reconstructed && (
        <p className="border-b border-line bg-amber-50 px-4 py-1.5 text-[12px] text-amber-800" data-testid="file-reconstructed">
          Reconstructed from records: this sync sent the file&apos;s memory records but not its bytes, so its text is
          rebuilt from them and may differ from the file on the agent&apos;s machine.
        </p>
      )}
      {file.isPending ? (
        <LoadingRows rows={8} label="Loading file" />
      ) : file.error ? (
        <ErrorState error={file.error} retry={() => void file.refetch()} />
      ) : file.data.text === null ? (
        <EmptyState title="Binary file">{formatBytes(file.data.size)}; use Raw to download it.</EmptyState>
      ) : compare !== null && compare > latest ? (
        <EmptyState title={`There is no sequence #${compare}`} testId="compare-past-latest">The latest is #{latest}.</EmptyState>
      ) : compare !== null ? (
        other.isPending ? (
          <LoadingRows rows={6} label="Loading comparison" />
        ) : other.error && !missingThen ? (
          <ErrorState error={other.error} />
        ) : (
          <FileCompare key={`${compare}:${seq}:${path}`} before={missingThen ? null : (other.data?.text ?? '')} after={file.data.text} fromSeq={compare} toSeq={seq} />
        )
      ) : view === 'blame' ? (
        <FileBlame key={`${seq}:${path}`} agentId={agentId} seq={seq} path={path} />
      ) : (
        <SectionedFile key={`${seq}:${path}`} agentId={agentId} seq={seq} text={file.data.text} sections={sections} />
      )}
    </div>
  );
}
