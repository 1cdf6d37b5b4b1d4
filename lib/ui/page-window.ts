/**
 * A bounded window over a keyset-paged list: react-query's infinite query keeps at most
 * `MAX_DRAWN_ROWS / pageSize` pages; loading one more drops the first, which "show newer" brings
 * back. Each page param remembers the one before it, so the window can slide back over pages it
 * dropped (keyset cursors stay valid: a page asked again is the same page).
 */
export const MAX_DRAWN_ROWS = 2000;

/** Page sizes: changes of the feeds, ops of one kind in the sequence view, versions in the lineage. */
export const CHANGES_PAGE = 200;
/** The home page's fleet feed: below the fleet table (101 rows at fleet scale), so half a page keeps home under 5,000 elements. */
export const FLEET_FEED_PAGE = 100;
export const OPS_PAGE = 100;
export const LINEAGE_PAGE = 50;
/**
 * Versions of a lineage page the server renders in full (about a 1440×900 screen of cards); the
 * others of the first page are drawn in the browser after hydration (VersionCard's `deferred`).
 */
export const FIRST_SCREEN_VERSIONS = 8;
export const RECORDS_PAGE = 200;
/**
 * Rows of a server-rendered list (the agent page's memories and changes) drawn in full in the
 * document: more than a 1440×900 screen holds. The rest of the first page are light places until
 * the page has hydrated (RecordList, ChangesFeed): 200 full rows made the document ~600 KB.
 */
export const FIRST_SCREEN_ROWS = 15;
/** The Timeline tab's sequences, newest first (paged with `before`). */
export const SEQUENCES_PAGE = 50;

export interface PageParam {
  cursor: string | null;
  /** The param of the page before this one (undefined for the first page). */
  prev?: PageParam;
}

export function windowOptions<T extends { next_cursor: string | null }>(pageSize: number) {
  return {
    initialPageParam: { cursor: null } as PageParam,
    getNextPageParam: (last: T, _all: T[], lastParam: PageParam): PageParam | undefined =>
      last.next_cursor ? { cursor: last.next_cursor, prev: lastParam } : undefined,
    getPreviousPageParam: (_first: T, _all: T[], firstParam: PageParam): PageParam | undefined => firstParam.prev,
    maxPages: Math.max(1, Math.floor(MAX_DRAWN_ROWS / pageSize)),
  };
}
