import Link from '@/components/ui/Link';
import type { Lineage } from '@/lib/ui/api-types';
import { routes } from '@/lib/ui/routes';
import { PathText } from '../ui/PathText';

/**
 * Provenance: where the memory was born, and each file it moved to since (its whole chain). Without
 * a move it says none is on record, not that none happened: a section moved to another file and
 * edited in the same sync is a delete and a create by design (provenance.ts `linkMoves` pairs
 * moves by their text), so a memory born after the first sync may have come from another file.
 */
export function Provenance({ agentId, lineage }: { agentId: string; lineage: Pick<Lineage, 'moves' | 'record'> }) {
  const moves = lineage.moves;
  if (moves.length === 0) {
    return (
      <div className="space-y-1 text-[12px] text-faint" data-testid="provenance-none">
        <p>Born here: no move into or out of another file is on record.</p>
        {lineage.record.born_seq > 0 && (
          <p data-testid="provenance-new-after-move">
            A section moved to another file and edited in the same sync is recorded as a new memory (and the old one as
            deleted): search for its words to find any earlier history.
          </p>
        )}
      </div>
    );
  }
  const seq = (n: number) => (
    <Link href={routes.sequence(agentId, n)} className="font-mono text-accent hover:underline">
      #{n}
    </Link>
  );
  return (
    <ol className="space-y-1.5 text-[12px]" data-testid="provenance">
      <li data-testid="provenance-born">
        <span className="text-muted">Born in </span>
        <span className="break-all font-mono">{lineage.record.born_file ? <PathText path={lineage.record.born_file} /> : '—'}</span>
        <span className="text-faint"> at </span>
        {seq(lineage.record.born_seq)}
      </li>
      {moves.map((m) => (
        <li key={`${m.seq}-${m.record_id}`} data-testid="provenance-move">
          <span className="text-muted">{m.from_file && m.from_file === m.to_file ? 'Renamed in ' : 'Moved to '}</span>
          <Link href={routes.workspace(agentId, m.seq, m.to_file ?? undefined)} className="break-all font-mono text-accent hover:underline">
            {m.to_file ? <PathText path={m.to_file} /> : '—'}
          </Link>
          <span className="text-faint"> at </span>
          {seq(m.seq)}
        </li>
      ))}
    </ol>
  );
}
