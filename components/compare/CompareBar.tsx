import { routes } from '@/lib/ui/routes';
import { LinkButton } from '../ui/Button';

/** Picks `seq` into (or out of) a selection of at most two sequences; a third pick replaces the older pick. */
export function pickSequence(picked: readonly number[], seq: number): number[] {
  if (picked.includes(seq)) return picked.filter((p) => p !== seq);
  return [...picked, seq].slice(-2);
}

/** Above the timeline's sequences: "Compare #A → #B" once two are selected. */
export function CompareBar({ agentId, picked, onClear }: { agentId: string; picked: number[]; onClear: () => void }) {
  const [from, to] = [...picked].sort((a, b) => a - b);
  return (
    <div className="flex flex-wrap items-center gap-3 border-b border-line px-4 py-2 text-[12px] text-muted" data-testid="compare-bar">
      {from !== undefined && to !== undefined ? (
        <>
          <LinkButton href={routes.compare(agentId, from, to)} variant="primary" testId="compare-selected">
            Compare #{from} → #{to}
          </LinkButton>
          <button type="button" onClick={onClear} className="text-accent hover:underline">Clear</button>
        </>
      ) : (
        <span aria-live="polite">{picked.length === 1 ? `#${picked[0]} selected: select one more sequence to compare.` : 'Select two sequences to compare them.'}</span>
      )}
    </div>
  );
}
