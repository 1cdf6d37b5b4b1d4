'use client';

import { Button } from './Button';

/** What the buttons need of a react-query infinite query. */
export interface PagedQuery {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  isFetchingNextPage: boolean;
  isFetchingPreviousPage: boolean;
  fetchNextPage: () => Promise<unknown>;
  fetchPreviousPage: () => Promise<unknown>;
}

/**
 * "Load more" below a keyset-paged list, or (`edge="start"`) the button that brings back the pages
 * the bounded window dropped from its start. Nothing when there is nothing to load on that side.
 */
export function PageButton({ query, edge = 'end', more = 'Load more', back = 'Show newer', testId }: {
  query: PagedQuery;
  edge?: 'start' | 'end';
  more?: string;
  back?: string;
  testId?: string;
}) {
  const start = edge === 'start';
  if (start ? !query.hasPreviousPage : !query.hasNextPage) return null;
  const busy = start ? query.isFetchingPreviousPage : query.isFetchingNextPage;
  return (
    <div className={start ? 'border-b border-line p-2 text-center' : 'border-t border-line p-3 text-center'}>
      <Button
        testId={testId ?? (start ? 'load-newer' : 'load-more')}
        disabled={busy}
        onClick={() => void (start ? query.fetchPreviousPage() : query.fetchNextPage())}
      >
        {busy ? 'Loading…' : start ? back : more}
      </Button>
    </div>
  );
}
