import Link from '@/components/ui/Link';
import type { Suggestion } from '@/lib/history/queries';
import { routes } from '@/lib/ui/routes';

/** "Did you mean: gateway fanless · …": each a link to the query it gives. */
export function Suggestions({ suggestions, agent }: { suggestions: readonly Suggestion[]; agent: string | null }) {
  if (suggestions.length === 0) return null;
  return (
    <p className="mt-3 text-[13px] text-muted" data-testid="suggestions">
      Did you mean{' '}
      {suggestions.map((s, i) => (
        <span key={s.query}>
          {i > 0 && ' · '}
          <Link href={routes.search(s.query, agent ?? undefined)} data-testid="suggestion" className="font-mono font-medium text-accent hover:underline">
            {s.query}
          </Link>
        </span>
      ))}
      ?
    </p>
  );
}
