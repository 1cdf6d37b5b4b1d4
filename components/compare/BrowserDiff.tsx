'use client';

import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { FoldedDiff } from './FoldedDiff';

/**
 * A changed file's folded word diff, worked out in the browser: a file's diff costs the server
 * milliseconds per file (20 files of ~10 KB: 30–120 ms of the compare document), so the document
 * carries the two texts and a place, and the diff is drawn once the page has hydrated.
 */
export function BrowserDiff({ before, after }: { before: string; after: string }) {
  const hydrated = useHydrated();
  if (!hydrated) {
    return <p className="px-3 py-2 text-[12px] text-muted" data-testid="diff-pending">Working out the diff…</p>;
  }
  return <FoldedDiff before={before} after={after} />;
}
