/** Cursor paging for views that need every item of a listing, not one page of it. */
export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Follows `next_cursor` from the first page to the last and returns every item in order. A cursor
 * that comes back twice would loop forever, so it throws instead.
 */
export async function fetchAllPages<T>(fetchPage: (cursor: string | null) => Promise<CursorPage<T>>): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: CursorPage<T> = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (cursor !== null) {
      if (seen.has(cursor)) throw new Error(`the listing returned cursor ${cursor} twice`);
      seen.add(cursor);
    }
  } while (cursor !== null);
  return items;
}
