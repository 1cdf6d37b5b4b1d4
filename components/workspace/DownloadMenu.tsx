import { downloadUrl } from '@/lib/ui/api-client';
import type { ArchiveFormat } from '@/lib/ui/api-types';
import { LinkButton } from '../ui/Button';
import { DownloadIcon } from '../ui/icons';

const FORMATS: { format: ArchiveFormat; title: string }[] = [
  { format: 'tar.gz', title: 'The workspace files, byte-exact, as a gzipped tarball' },
  { format: 'zip', title: 'The workspace files, byte-exact, as a zip' },
  { format: 'alf', title: 'An ALF snapshot at this sequence (restore it with `lineage restore` or the alf CLI)' },
];

/** Download the workspace at `seq`. */
export function DownloadMenu({ agentId, seq }: { agentId: string; seq: number }) {
  return (
    <div className="flex items-center gap-1.5" data-testid="download-menu">
      <span className="text-[12px] text-muted">Download #{seq}</span>
      {FORMATS.map(({ format, title }) => (
        <LinkButton key={format} href={downloadUrl(agentId, seq, format)} download title={title} testId={`download-${format}`}>
          <DownloadIcon />.{format}
        </LinkButton>
      ))}
    </div>
  );
}
