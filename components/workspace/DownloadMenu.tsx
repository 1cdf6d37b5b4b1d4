import { downloadUrl } from '@/lib/ui/api-client';
import type { ArchiveFormat } from '@/lib/ui/api-types';
import { LinkButton } from '../ui/Button';
import { DownloadIcon } from '../ui/icons';

/**
 * What each download holds, said truthfully: OpenClaw files are the bytes synced (a file a
 * record-only delta changed is rendered from its records, and marked so in the tree); for ZeroClaw
 * and Hermes the archive is what `lineage restore --out` writes, whose database is rebuilt from the
 * records, not the original file.
 */
function formats(runtime: string | null): { format: ArchiveFormat; title: string }[] {
  const database = runtime === 'zeroclaw' ? 'data/memory/brain.db' : runtime === 'hermes' ? 'state.db' : null;
  const what = database === null
    ? 'The workspace files as synced (byte-exact, except files marked “from records”, rendered from their records)'
    : `What \`lineage restore --out\` writes at this sequence: ${database} rebuilt from this agent’s records (the same bytes for the same sequence, not the original database file) and the other files byte-exact as synced`;
  return [
    { format: 'tar.gz', title: `${what}, as a gzipped tarball` },
    { format: 'zip', title: `${what}, as a zip` },
    { format: 'alf', title: 'An ALF snapshot at this sequence (restore it with `lineage restore` or the alf CLI)' },
  ];
}

/** Download the workspace at `seq`. */
export function DownloadMenu({ agentId, seq, runtime }: { agentId: string; seq: number; runtime: string | null }) {
  return (
    <div className="flex items-center gap-1.5" data-testid="download-menu">
      <span className="text-[12px] text-muted">Download #{seq}</span>
      {formats(runtime).map(({ format, title }) => (
        <LinkButton key={format} href={downloadUrl(agentId, seq, format)} download title={title} testId={`download-${format}`}>
          <DownloadIcon />.{format}
        </LinkButton>
      ))}
    </div>
  );
}
