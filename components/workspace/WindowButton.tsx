import { plural } from '@/lib/ui/format';

/**
 * "Show N earlier/more lines" at an edge of a windowed file, with where the window is: `hidden`
 * lines lie beyond this edge, `step` is how many one press draws.
 */
export function WindowButton({ edge, hidden, step, onClick, testId }: {
  edge: 'earlier' | 'later';
  hidden: number;
  step: number;
  onClick: () => void;
  testId: string;
}) {
  if (hidden <= 0) return null;
  return (
    <button
      type="button"
      onClick={onClick}
      data-testid={testId}
      className="my-0.5 block w-full border-y border-line bg-zinc-50 px-3 py-0.5 text-left font-sans text-[12px] text-accent hover:bg-zinc-100 focus-visible:-outline-offset-2"
    >
      Show {plural(Math.min(step, hidden), edge === 'earlier' ? 'earlier line' : 'more line')}
      <span className="text-muted"> ({hidden} {edge === 'earlier' ? 'above' : 'below'})</span>
    </button>
  );
}
