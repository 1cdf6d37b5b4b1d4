/**
 * Server-side prefetch: a page computes the same values the API would return (the same storage
 * verbs) and hands them to react-query under the same keys, so the first paint already has data.
 */
import { dehydrate, HydrationBoundary, QueryClient, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';

export type Prefetch = [QueryKey, () => unknown];

/** Runs each loader, awaited (errors are left for the client to fetch and show), and wraps `children`. */
export async function Prefetched({ entries, children }: { entries: Prefetch[]; children: ReactNode }) {
  const client = new QueryClient();
  for (const [key, load] of entries) {
    try {
      const value = await load();
      if (value !== null && value !== undefined) client.setQueryData(key, JSON.parse(JSON.stringify(value)));
    } catch {
      // the client component asks the API and renders the error state
    }
  }
  return <HydrationBoundary state={dehydrate(client)}>{children}</HydrationBoundary>;
}
