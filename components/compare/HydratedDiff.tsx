'use client';

import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { FoldedDiff } from './FoldedDiff';

/**
 * A memory's folded word diff below the first screen (COMPARE_SERVER_DIFFS), drawn once the page has
 * hydrated: the document carries the two texts (the props) and a place, not the diff's lines — at 25
 * memories of each kind those were about a third of the compare page's elements, rendered by the
 * server twice (RSC and HTML).
 */
export function HydratedDiff({ before, after }: { before: string; after: string }) {
  if (!useHydrated()) return <p className="px-3 py-2 text-[12px] text-muted" data-testid="diff-pending">Working out the diff…</p>;
  return <FoldedDiff before={before} after={after} />;
}
