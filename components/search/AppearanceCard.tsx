import Link from 'next/link';
import type { Appearance } from '@/lib/ui/api-types';
import { formatDate, formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { Highlight } from '../memory/Highlight';
import { LinkButton } from '../ui/Button';
import { PathText } from '../ui/PathText';

/** The headline answer: "first appeared in agent A at sequence N (date), in file F". */
export function FirstAppearance({ first, query, agentName }: { first: Appearance; query: string; agentName: string }) {
  return (
    <section data-testid="first-appearance" data-seq={first.sequence} data-record-id={first.record_id} className="rounded-lg border border-emerald-200 bg-white">
      <div className="border-b border-emerald-100 bg-emerald-50/60 px-4 py-3">
        <p className="text-[11px] font-semibold uppercase tracking-wide text-emerald-800">First appearance</p>
        <p className="mt-1 text-[14px] text-ink" data-testid="first-sentence">
          First appeared in{' '}
          <Link href={routes.agent(first.agent_id)} className="font-semibold hover:text-accent hover:underline">
            {agentName}
          </Link>{' '}
          at sequence{' '}
          <Link href={routes.sequence(first.agent_id, first.sequence)} className="font-mono font-semibold text-accent hover:underline" data-testid="first-seq">
            #{first.sequence}
          </Link>{' '}
          <span title={formatDateTime(first.synced_at)}>({formatDate(first.synced_at)})</span>
          {first.origin_file && (
            <>
              , in file <span className="text-[13px]" data-testid="first-file"><PathText path={first.origin_file} /></span>
            </>
          )}
        </p>
      </div>
      <div className="flex items-start gap-4 px-4 py-3">
        <p className="min-w-0 flex-1 whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-ink" data-testid="first-snippet">
          <Highlight text={first.snippet} query={query} />
        </p>
        <LinkButton href={routes.lineage(first.agent_id, first.record_id, first.sequence)} variant="primary" testId="open-first-version">
          Open this version →
        </LinkButton>
      </div>
    </section>
  );
}

/** One later appearance in the ordered list. */
export function AppearanceRow({ appearance, query, agentName }: { appearance: Appearance; query: string; agentName: string }) {
  const a = appearance;
  return (
    <li data-testid="appearance" data-seq={a.sequence} className="grid grid-cols-1 gap-1 sm:grid-cols-[150px_minmax(0,1fr)] sm:gap-4 px-4 py-2.5 hover:bg-zinc-50">
      <div className="text-[12px]">
        <Link href={routes.lineage(a.agent_id, a.record_id, a.sequence)} className="font-mono font-semibold text-accent hover:underline">
          #{a.sequence}
        </Link>
        <span className="ml-1.5 text-muted">{agentName}</span>
        <div className="text-[11px] text-faint" title={formatDateTime(a.synced_at)}>
          {formatDate(a.synced_at)}
        </div>
      </div>
      <div className="min-w-0">
        {a.origin_file && <div className="text-[11px] text-faint"><PathText path={a.origin_file} /></div>}
        <p className="line-clamp-2 break-words font-mono text-[12px] leading-5 text-muted">
          <Highlight text={a.snippet.replace(/\s+/g, ' ')} query={query} />
        </p>
      </div>
    </li>
  );
}
