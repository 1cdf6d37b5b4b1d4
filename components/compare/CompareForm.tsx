import { routes } from '@/lib/ui/routes';

const FIELD = 'h-7 w-20 rounded-md border border-line bg-white px-1.5 font-mono text-[12px] text-ink shadow-xs';

/**
 * Two sequences to compare, as a plain GET form: it works before hydration and from the keyboard
 * alone; the page checks the values and says what is wrong with them.
 */
export function CompareForm({ agentId, from, to, latest }: { agentId: string; from: number | null; to: number | null; latest: number }) {
  return (
    <form method="get" action={routes.compare(agentId, 0, 0).split('?')[0]} className="flex flex-wrap items-center gap-2 text-[12px] text-muted" data-testid="compare-form">
      <label htmlFor="compare-from">From #</label>
      <input id="compare-from" name="from" type="number" min={0} max={latest} required defaultValue={from ?? undefined} className={FIELD} data-testid="compare-from" />
      <label htmlFor="compare-to">to #</label>
      <input id="compare-to" name="to" type="number" min={0} max={latest} required defaultValue={to ?? undefined} className={FIELD} data-testid="compare-to" />
      <span className="text-faint">of {latest}</span>
      <button type="submit" className="inline-flex h-7 items-center rounded-md border border-line bg-white px-2.5 font-medium text-ink shadow-xs hover:bg-zinc-50" data-testid="compare-submit">
        Compare
      </button>
    </form>
  );
}
