import Link from '@/components/ui/Link';
import type { Appearance, FactStatus } from '@/lib/history/queries';
import { formatDate, formatDateTime } from '@/lib/ui/format';
import { routes } from '@/lib/ui/routes';
import { Highlight } from '../memory/Highlight';
import { LinkButton } from '../ui/Button';
import { OP_WORDS, shortDate, statusWords } from './status-words';
import { SafeName } from '@/components/ui/SafeName';
import { PathText } from '../ui/PathText';

/**
 * The headline answer: "First appeared in atlas at #20 (Nov 16), in memory/semantic/infrastructure.md
 * — still present at #41" (or "removed at #25", "its memory was deleted at #12").
 */
export function FirstAppearance({ first, status, agentName }: { first: Appearance; status: FactStatus; agentName: string }) {
  return (
    <section data-testid="first-appearance" data-seq={first.sequence} data-record-id={first.record_id} className="rounded-lg border border-emerald-200 bg-white">
      <div className="border-b border-emerald-100 bg-emerald-50/60 px-4 py-3">
        <p className="text-[11px] font-semibold uppercase tracking-wide text-emerald-800">First appearance</p>
        <p className="mt-1 text-[14px] text-ink" data-testid="first-sentence">
          First appeared in{' '}
          <Link href={routes.agent(first.agent_id)} className="font-semibold hover:text-accent hover:underline">
            <SafeName name={agentName} />
          </Link>{' '}
          at{' '}
          <Link href={routes.sequence(first.agent_id, first.sequence)} className="font-mono font-semibold text-accent hover:underline" data-testid="first-seq">
            #{first.sequence}
          </Link>{' '}
          <span title={formatDateTime(first.synced_at)}>({shortDate(first.synced_at)})</span>
          {first.origin_file && (
            <>
              , in <span className="text-[13px]" data-testid="first-file"><PathText path={first.origin_file} /></span>
            </>
          )}
          {' — '}
          <span data-testid="fact-status" className={status.present ? 'font-medium text-emerald-800' : 'font-medium text-delete'}>
            {statusWords(status)}
          </span>
        </p>
      </div>
      <div className="flex items-start gap-4 px-4 py-3">
        <p className="min-w-0 flex-1 whitespace-pre-wrap break-words font-mono text-[12.5px] leading-6 text-ink" data-testid="first-snippet">
          <Highlight text={first.snippet} ranges={first.highlights} />
        </p>
        <LinkButton href={routes.lineage(first.agent_id, first.record_id, first.sequence)} variant="primary" testId="open-first-version">
          Open this version →
        </LinkButton>
      </div>
    </section>
  );
}

/** One later appearance in the ordered list. */
export function AppearanceRow({ appearance, agentName }: { appearance: Appearance; agentName: string }) {
  const a = appearance;
  return (
    <li data-testid="appearance" data-seq={a.sequence} data-op={a.op} className="grid grid-cols-1 gap-1 sm:grid-cols-[150px_minmax(0,1fr)] sm:gap-4 px-4 py-2.5 hover:bg-zinc-50">
      <div className="text-[12px]">
        <Link href={routes.lineage(a.agent_id, a.record_id, a.sequence)} className="font-mono font-semibold text-accent hover:underline">
          #{a.sequence}
        </Link>
        <span className="ml-1.5 text-muted"><SafeName name={agentName} /></span>
        <div className="text-[11px] text-faint" title={formatDateTime(a.synced_at)}>
          {formatDate(a.synced_at)} · <span data-testid="appearance-op">{OP_WORDS[a.op] ?? a.op}</span>
        </div>
      </div>
      <div className="min-w-0">
        {a.origin_file && <div className="text-[11px] text-faint"><PathText path={a.origin_file} /></div>}
        {/* Whitespace collapses in CSS, not in the text: the highlight ranges index the snippet as sent. */}
        <p className="line-clamp-2 whitespace-normal break-words font-mono text-[12px] leading-5 text-muted">
          <Highlight text={a.snippet} ranges={a.highlights} />
        </p>
      </div>
    </li>
  );
}
