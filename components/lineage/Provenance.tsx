import Link from 'next/link';
import type { Lineage, ProvenanceLink } from '@/lib/ui/api-types';
import { routes } from '@/lib/ui/routes';

function LinkRow({ label, link, testId }: { label: string; link: ProvenanceLink; testId: string }) {
  return (
    <li className="text-[12px]">
      <span className="text-muted">{label} </span>
      <Link href={routes.lineage(link.agent_id, link.record_id)} data-testid={testId} className="font-mono text-accent hover:underline" title={link.record_id}>
        {link.origin_file ?? link.record_id.slice(0, 8)}
      </Link>
      <span className="text-faint"> at </span>
      <Link href={routes.sequence(link.agent_id, link.seq)} className="font-mono text-accent hover:underline">
        #{link.seq}
      </Link>
    </li>
  );
}

/** Provenance: the record this one was moved from, and where it went. */
export function Provenance({ lineage }: { lineage: Lineage }) {
  if (!lineage.moved_from && lineage.moved_to.length === 0) {
    return <p className="text-[12px] text-faint">Born here: no move into or out of another file.</p>;
  }
  return (
    <ul className="space-y-1.5" data-testid="provenance">
      {lineage.moved_from && <LinkRow label="Moved from" link={lineage.moved_from} testId="moved-from" />}
      {lineage.moved_to.map((link) => (
        <LinkRow key={link.record_id} label="Moved to" link={link} testId="moved-to" />
      ))}
    </ul>
  );
}
