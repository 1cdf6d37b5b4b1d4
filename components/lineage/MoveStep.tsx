import Link from '@/components/ui/Link';
import type { LineageVersion } from '@/lib/ui/api-types';
import { formatDate, formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { PathText } from '../ui/PathText';

/**
 * A move in the lineage: "moved from A to B at #21 (date)", each file opening the workspace on its
 * side of the move (A just before it, B at it); a section renamed in its own file (its heading
 * changed, its body kept: provenance.ts) is "renamed in A at #21 (date)".
 */
export function MoveStep({ agentId, version }: { agentId: string; version: LineageVersion }) {
  const link = 'break-all font-mono text-accent hover:underline';
  if (version.from_file && version.from_file === version.to_file) {
    return (
      <p className="text-[12.5px] text-muted" data-testid="move-step" data-renamed="">
        renamed in{' '}
        <Link href={routes.workspace(agentId, version.seq, version.to_file)} className={link} data-testid="move-to-file">
          <PathText path={version.to_file} />
        </Link>{' '}
        <AtSequence agentId={agentId} version={version} />
      </p>
    );
  }
  return (
    <p className="text-[12.5px] text-muted" data-testid="move-step">
      moved from{' '}
      <Link href={routes.workspace(agentId, Math.max(0, version.seq - 1), version.from_file ?? undefined)} className={link} data-testid="move-from-file">
        {version.from_file ? <PathText path={version.from_file} /> : '—'}
      </Link>{' '}
      to{' '}
      <Link href={routes.workspace(agentId, version.seq, version.to_file ?? undefined)} className={link} data-testid="move-to-file">
        {version.to_file ? <PathText path={version.to_file} /> : '—'}
      </Link>{' '}
      <AtSequence agentId={agentId} version={version} />
    </p>
  );
}

/** "at #21 (date)": the sequence's page, and its date with the time in the title. */
function AtSequence({ agentId, version }: { agentId: string; version: LineageVersion }) {
  return (
    <>
      at{' '}
      <Link href={routes.sequence(agentId, version.seq)} className="font-mono text-accent hover:underline">
        #{version.seq}
      </Link>{' '}
      (<span title={formatDateTime(version.synced_at)}>{formatDate(version.synced_at)}</span>)
    </>
  );
}
