import Link from '@/components/ui/Link';
import type { CompareFile } from '@/lib/history/queries/compare';
import { formatBytes } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { Badge } from '../ui/Badge';
import { PathText } from '../ui/PathText';
import { BrowserDiff } from './BrowserDiff';

/**
 * A changed file and how the page shows it (app/agents/[id]/compare/changed-files.ts): `browser`, its
 * diff worked out in the browser from its two texts; `too-large`, a link to the workspace's compare in
 * the diff's place; `listed`, past the files drawn with their diff, a row with that link.
 */
export interface ChangedFile {
  path: string;
  before: CompareFile;
  after: CompareFile;
  diff: 'browser' | 'too-large' | 'listed';
}

/** A file added or removed: its path, size and a link to it in the workspace where it exists. */
export function FileRow({ agentId, file, kind }: { agentId: string; file: CompareFile; kind: 'added' | 'removed' }) {
  return (
    <li data-testid="compare-file" data-kind={kind} className="flex flex-wrap items-center gap-2 px-4 py-2 text-[12.5px]">
      <Badge tone={kind === 'added' ? 'create' : 'delete'}>{kind}</Badge>
      <Link href={routes.workspace(agentId, file.seq, file.path)} className="min-w-0 font-mono text-accent hover:underline">
        <PathText path={file.path} />
      </Link>
      <span className="ml-auto font-mono text-[11px] text-muted">{formatBytes(file.size)}</span>
    </li>
  );
}

/** The workspace's line compare of a changed file, from `from` to `to`. */
const workspaceCompare = (agentId: string, file: ChangedFile, from: number, to: number) => `${routes.workspace(agentId, to, file.path)}&compare=${from}`;

/** A changed file's badge, path (linked to the workspace's compare) and sizes: a diff's header, or a row of its own. */
function ChangedFileLabel({ href, file, strong }: { href: string; file: ChangedFile; strong?: boolean }) {
  return (
    <>
      <Badge tone="update">changed</Badge>
      <Link href={href} className={`min-w-0 font-mono ${strong ? 'font-semibold ' : ''}text-accent hover:underline`}>
        <PathText path={file.path} />
      </Link>
      <span className="ml-auto font-mono text-[11px] text-muted">
        {formatBytes(file.before.size)} → {formatBytes(file.after.size)}
      </span>
    </>
  );
}

/** A changed file past the ones drawn with their diff: its path, linked to the workspace's compare, and its sizes. */
export function ChangedFileRow({ agentId, file, from, to }: { agentId: string; file: ChangedFile; from: number; to: number }) {
  return (
    <li data-testid="compare-file" data-kind="changed" className="flex flex-wrap items-center gap-2 px-4 py-2 text-[12.5px]">
      <ChangedFileLabel href={workspaceCompare(agentId, file, from, to)} file={file} />
    </li>
  );
}

/** A file whose bytes changed: its word diff with unchanged lines folded, or a link when it cannot be drawn here. */
export function ChangedFileEntry({ agentId, file, from, to }: { agentId: string; file: ChangedFile; from: number; to: number }) {
  const href = workspaceCompare(agentId, file, from, to);
  return (
    <li data-testid="compare-file" data-kind="changed" className="rounded-md border border-line bg-white">
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-zinc-50/70 px-3 py-1.5 text-[12px]">
        <ChangedFileLabel href={href} file={file} strong />
      </header>
      <div className="px-1">
        {file.diff === 'browser' ? (
          <BrowserDiff agentId={agentId} path={file.path} from={from} to={to} href={href} />
        ) : (
          <p className="px-3 py-2 text-[12px] text-muted" data-testid="diff-unavailable">
            Too large to draw here: <Link href={href} className="text-accent hover:underline">compare it in the workspace</Link>.
          </p>
        )}
      </div>
    </li>
  );
}
