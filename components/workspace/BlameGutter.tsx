import Link from '@/components/ui/Link';
import type { BlameBlock } from '@/lib/history/queries/blame';
import { formatDate, formatDateTime } from '@/lib/ui/format';
import { recordTitle } from '@/lib/ui/record-text';
import { routes } from '@/lib/ui/routes';
import { PathText } from '../ui/PathText';
import { RelativeTime } from '../ui/RelativeTime';
import { SafeName } from '../ui/SafeName';

function SeqLink({ agentId, seq, testId }: { agentId: string; seq: number; testId: string }) {
  return (
    <Link href={routes.sequence(agentId, seq)} className="font-mono text-accent hover:underline" data-testid={testId} title={`Sequence #${seq}`}>
      #{seq}
    </Link>
  );
}

/**
 * What a block of lines is and where it came from, GitHub-blame style: for a memory section its
 * title (to its lineage), born #seq + date, last changed #seq + relative date, and a move if any
 * ("renamed" when it stayed in its file: its heading changed, provenance.ts);
 * for the file's own lines, the sequence that last changed the file.
 */
export function BlameGutter({ agentId, path, block }: { agentId: string; path: string; block: BlameBlock }) {
  if (block.kind === 'file') {
    return (
      <div className="text-[12px] leading-5 text-muted" data-testid="blame-gutter">
        <p className="text-faint">Outside any memory</p>
        <p>
          file changed <SeqLink agentId={agentId} seq={block.changed.seq} testId="blame-changed" /> · <RelativeTime iso={block.changed.at} />
        </p>
      </div>
    );
  }
  const title = recordTitle({ heading: block.heading, origin_file: path, content: block.lines.join('\n') });
  return (
    <div className="min-w-0 text-[12px] leading-5 text-muted" data-testid="blame-gutter">
      <Link
        href={routes.lineage(agentId, block.record_id)}
        className="block truncate font-medium text-accent hover:underline"
        title={`Lineage of “${title}” (record ${block.record_id})`}
        data-testid="blame-lineage-link"
      >
        <SafeName name={title} max={60} />
      </Link>
      <p>
        born <SeqLink agentId={agentId} seq={block.born.seq} testId="blame-born" /> ·{' '}
        <time dateTime={block.born.at} title={formatDateTime(block.born.at)}>{formatDate(block.born.at)}</time>
        {block.born.file !== null && block.born.file !== path && (
          <span className="block">in <PathText path={block.born.file} /></span>
        )}
      </p>
      <p>
        changed <SeqLink agentId={agentId} seq={block.changed.seq} testId="blame-changed" /> · <RelativeTime iso={block.changed.at} />
      </p>
      {block.moved && (
        <p data-testid="blame-moved">
          {block.moved.from_file !== null && block.moved.from_file === block.moved.to_file ? 'renamed' : 'moved'}{' '}
          <SeqLink agentId={agentId} seq={block.moved.seq} testId="blame-moved-seq" /> · <RelativeTime iso={block.moved.at} />
        </p>
      )}
    </div>
  );
}
